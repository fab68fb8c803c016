import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build, buildClaimsPrefix, collectGarbage, layout, type StorageDriver } from '@snapdeck/snapshot';
import { runCli } from '@snapdeck/cli';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, waitFor, type TestGateway } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { currentVersionOf } from './helpers/snapshot-read.ts';

/**
 * Retention (`snapdeck gc`) on a local folder and on S3 (moto), with a running gateway: a walk on
 * a deleted version gets 400 Invalid cursor, never a 500.
 */
const GAME = 'gundam';
let s3: S3TestServer;
let dir: string;
let cleanup: () => Promise<void>;
const savedEnv = { ...process.env };

beforeAll(async () => {
  s3 = await startS3Server();
  // The gateway opens its location with openStorage(), which reads the S3 settings from the environment.
  Object.assign(process.env, s3.env);
  ({ dir, cleanup } = await tempDir('snapdeck-gc-'));
});

afterAll(async () => {
  process.env = savedEnv;
  await s3?.stop();
  await cleanup?.();
});

/**
 * Runs `snapdeck gc ...` in this process through the CLI's entry point (runCli, what main.ts
 * runs), returning its stdout; a non-zero exit throws with what it printed on stderr.
 */
async function gcCli(args: string[]): Promise<string> {
  let out = '';
  let err = '';
  const code = await runCli(['gc', ...args], { from: 'user', output: { out: (text) => void (out += text), err: (text) => void (err += text) } });
  if (code !== 0) throw new Error(`snapdeck gc exited with ${code}: ${err}`);
  return out;
}

const kinds: Array<{ name: string; location: () => { out: string; driver: StorageDriver } }> = [
  { name: 'local folder', location: () => ({ out: join(dir, 'snapshots'), driver: new FsDriver(join(dir, 'snapshots')) }) },
  {
    name: 'S3',
    location: () => {
      const out = s3.newLocation('gc');
      return { out, driver: s3.open(out) };
    },
  },
];

describe.each(kinds)('snapdeck gc on a $name', (kind) => {
  let gateway: TestGateway | undefined;
  afterAll(async () => {
    await gateway?.close();
  });

  it('deletes old versions (every file), keeps the current, the newest and the young ones, and a deleted version\'s cursor gets 400', async () => {
    const { out, driver } = kind.location();
    const catalog = join(dir, `catalog-${kind.name.replace(/\W/g, '')}`);
    const versions: string[] = [];
    const publish = async (seed: number) => {
      await writeGeneratedCatalog(catalog, { [GAME]: 40 + seed }, seed);
      const [result] = await build({ catalogDir: catalog, storage: driver, hitsPerPage: [10] });
      versions.push(result!.version);
    };
    await publish(1);
    gateway = await startTestGateway({ snapshots: out, db: join(dir, `gc-${kind.name.replace(/\W/g, '')}.db`), pointerTtlMs: 50 });
    const headers = { 'X-API-Key': gateway.createKey() };
    const first = await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=10`, headers);
    expect(first.status).toBe(200);
    const oldCursor: string = first.body.data.cursor;
    const walk = () => getJson(`${gateway!.base}/games/${GAME}/cards?hitsPerPage=10&cursor=${encodeURIComponent(oldCursor)}`, headers);
    expect((await walk()).status).toBe(200);

    for (const seed of [2, 3, 4]) await publish(seed);
    await waitFor(async () => (await getJson(`${gateway!.base}/games/${GAME}/cards?hitsPerPage=10`, headers)).body?.data?.totalHits === 44);
    // The walk started on the first version goes on while that version is kept.
    expect((await walk()).status).toBe(200);

    // Defaults (keep 3, min age 48 h): every version is young, nothing goes.
    const defaults = await collectGarbage({ storage: driver, games: [GAME] });
    expect(defaults.deletedVersions).toBe(0);
    expect(defaults.decisions.map((d) => d.action)).toEqual(['keep', 'keep', 'keep', 'keep']);

    // A dry run says what it would do and does nothing.
    const dry = await gcCli(['--out', out, '--keep', '2', '--min-age', '0', '--game', GAME, '--dry-run']);
    expect(dry).toContain(`${GAME} ${versions[0]}: would delete`);
    expect(dry).toContain(`${GAME} ${versions[3]}: keep`);
    expect(dry).toMatch(/dry run: would delete 2 version\(s\)/);
    expect((await driver.list(layout.versionPrefix(GAME, versions[0]!))).length).toBeGreaterThan(0);

    const output = await gcCli(['--out', out, '--keep', '2', '--min-age', '0', '--game', GAME]);
    expect(output).toContain(`${GAME} ${versions[3]}: keep`);
    expect(output).toMatch(new RegExp(`${versions[3]}: keep .*current`));
    expect(output).toMatch(new RegExp(`${versions[2]}: keep .*among the 2 newest`));
    expect(output).toContain(`${GAME} ${versions[1]}: delete`);
    expect(output).toContain(`${GAME} ${versions[0]}: delete`);
    expect(output).toMatch(/deleted 2 version\(s\), \d+ file\(s\), .* 2 build claim\(s\); kept 2 version\(s\)/);
    for (const gone of versions.slice(0, 2)) expect(await driver.list(layout.versionPrefix(GAME, gone))).toEqual([]);
    for (const kept of versions.slice(2)) expect(await driver.head(layout.manifest(GAME, kept))).not.toBeNull();
    expect(await driver.list(buildClaimsPrefix(GAME))).toHaveLength(2);
    expect(await currentVersionOf(driver, GAME)).toBe(versions[3]);

    // The gateway had that version loaded: it notices the deletion and answers 400, not 500.
    await waitFor(async () => (await walk()).status !== 200);
    const after = await walk();
    expect(after.status).toBe(400);
    expect(after.body).toEqual({ error: 'Invalid cursor' });
    // The current version is served as before.
    expect((await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=10`, headers)).body.data.totalHits).toBe(44);

    // The current version is never deleted, even with --keep 0.
    const last = await collectGarbage({ storage: driver, games: [GAME], keep: 0, minAgeHours: 0 });
    expect(last.decisions.find((d) => d.version === versions[3])).toMatchObject({ action: 'keep', reasons: ['current'] });
    expect(last.deletedVersions).toBe(1);
    expect((await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=10`, headers)).status).toBe(200);

    await gateway.close();
    gateway = undefined;
    await driver.close?.();
  });
});

describe('snapdeck gc usage', () => {
  it('refuses unknown games and bad numbers', async () => {
    const storage = new FsDriver(join(dir, 'empty'));
    await expect(collectGarbage({ storage, games: ['pokemon'] })).rejects.toThrow(/unknown game "pokemon"/);
    await expect(collectGarbage({ storage, keep: -1 })).rejects.toThrow(/keep must be a whole number/);
    await expect(collectGarbage({ storage, minAgeHours: Number.NaN })).rejects.toThrow(/minAgeHours must be a number/);
    await expect(gcCli(['--keep', 'two'])).rejects.toThrow(/whole number/);
    const result = await collectGarbage({ storage });
    expect(result.decisions).toEqual([]);
  });

  it('a version without a manifest (an interrupted build or gc) goes once it is old enough', async () => {
    const storage = new FsDriver(join(dir, 'partial'));
    await storage.put(`${GAME}/versions/2020-01-01T00-00-00-000Z-abcdef/cards.identity.0`, Buffer.from('x'));
    await storage.put(`${GAME}/versions/not-a-version/file`, Buffer.from('x'));
    const young = await collectGarbage({ storage, keep: 0, minAgeHours: 48, now: new Date('2020-01-02T00:00:00Z') });
    expect(young.deletedVersions).toBe(0);
    const old = await collectGarbage({ storage, keep: 0, minAgeHours: 48 });
    expect(old.decisions.find((d) => d.version === '2020-01-01T00-00-00-000Z-abcdef')).toMatchObject({ action: 'delete', complete: false });
    expect(old.decisions.find((d) => d.version === 'not-a-version')).toMatchObject({ action: 'keep' });
    expect(await storage.list(`${GAME}/versions/`)).toEqual([`${GAME}/versions/not-a-version/file`]);
  });
});
