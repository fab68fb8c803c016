import { join } from 'node:path';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FsDriver, PublishConflictError, VersionVerificationError, build, layout, pointerSchema, type StorageDriver,
} from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { FaultyDriver } from './helpers/faulty-driver.ts';
import { tempDir } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { currentVersionOf, readCurrentFully, runCli, runChild } from './helpers/snapshot-read.ts';

/**
 * Publishing under faults, on a local folder and on S3 (moto): builds killed with SIGKILL at
 * several points, a file corrupted before the pointer moves, and concurrent builds.
 */
const GAME = 'gundam';
let s3: S3TestServer;
let dir: string;
let cleanup: () => Promise<void>;
const catalogs: Record<'A' | 'B' | 'C', { dir: string; ids: string[] }> = {} as never;
/** Keys a fresh build of catalog B writes, in order (secret, claim, files..., change record, manifest, pointer, catalog check). */
let freshWrites: string[];

beforeAll(async () => {
  s3 = await startS3Server();
  ({ dir, cleanup } = await tempDir('snapdeck-faults-'));
  for (const [name, count, seed] of [['A', 120, 1], ['B', 150, 2], ['C', 90, 3]] as const) {
    const cards = await writeGeneratedCatalog(join(dir, `catalog-${name}`), { [GAME]: count }, seed);
    catalogs[name] = { dir: join(dir, `catalog-${name}`), ids: cards[GAME]!.map((card) => card.id).sort() };
  }
  const recording = new FaultyDriver(new FsDriver(join(dir, 'count')));
  await build({ catalogDir: catalogs.B.dir, storage: recording });
  freshWrites = recording.writes;
});

afterAll(async () => {
  await s3?.stop();
  await cleanup?.();
});

interface Kind {
  name: string;
  /** A fresh, empty location: the CLI's --out and an in-process driver on it. */
  location(): { out: string; driver: StorageDriver };
  env(): Record<string, string>;
}

let counter = 0;
const kinds: Kind[] = [
  {
    name: 'local folder',
    location: () => {
      const out = join(dir, `loc-${++counter}`);
      return { out, driver: new FsDriver(out) };
    },
    env: () => ({}),
  },
  {
    name: 'S3',
    location: () => {
      const out = s3.newLocation('faults');
      return { out, driver: s3.open(out) };
    },
    env: () => s3.env,
  },
];

/** A build in this process; with `afterWrite`, through a FaultyDriver that runs it after each write. */
const buildOf = (name: 'A' | 'B' | 'C', driver: StorageDriver, afterWrite?: (key: string) => Promise<void> | void) =>
  build({ catalogDir: catalogs[name].dir, storage: afterWrite ? new FaultyDriver(driver, { afterWrite }) : driver });

describe.each(kinds)('publishing to a $name', (kind) => {
  const cli = (out: string, catalog: 'A' | 'B' | 'C') => runCli(['build', '--catalog', catalogs[catalog].dir, '--out', out], kind.env());
  /** A build in a child process (test/helpers/build-child.ts) that SIGKILLs itself after its Nth write. */
  const killedBuild = (out: string, catalog: 'A' | 'B' | 'C', writes: number) =>
    runChild('build-child.ts', [catalogs[catalog].dir, out, String(writes)], kind.env());

  it('a build killed at several points (the last one between manifest and pointer) leaves the previous version current and readable; running it again finishes, skipping what was uploaded', async () => {
    const { out, driver } = kind.location();
    const [a] = await buildOf('A', driver);
    const expectPrevious = async () => {
      expect(await currentVersionOf(driver, GAME)).toBe(a!.version);
      expect((await readCurrentFully(driver, GAME)).ids).toEqual(catalogs.A.ids);
    };
    // Writes of a build of B here (the secret exists): claim, files..., change record, manifest, pointer, check.
    const fileCount = freshWrites.length - 6;
    for (const writes of [2, 3]) {
      const run = await killedBuild(out, 'B', writes);
      expect(run.signal, run.stderr).toBe('SIGKILL');
      await expectPrevious();
    }
    // Kill it right after the manifest: the files still missing, the change record, then the manifest.
    await new Promise((resolve) => setTimeout(resolve, 200)); // let writes of the killed run settle
    const versionFiles = (await driver.list(layout.versionsPrefix(GAME))).filter((key) => !key.includes(a!.version));
    expect(versionFiles.length).toBeGreaterThanOrEqual(3);
    expect(versionFiles.length).toBeLessThan(fileCount);
    const run = await killedBuild(out, 'B', fileCount - versionFiles.length + 2);
    expect(run.signal, run.stderr).toBe('SIGKILL');
    await expectPrevious();
    expect((await driver.list(layout.versionsPrefix(GAME))).filter((key) => key.endsWith('/manifest.json'))).toHaveLength(2);

    // Every file and the manifest are there with the right checksums: only the pointer is written.
    const done = await cli(out, 'B');
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toContain(`${fileCount + 1} skipped as already uploaded`);
    expect(done.stdout).toContain('resumed');
    const b = await readCurrentFully(driver, GAME);
    expect(b.ids).toEqual(catalogs.B.ids);
    expect(b.version > a!.version).toBe(true);
    expect(done.stdout).toContain(b.version);

    // The same catalog again: nothing to do.
    const [again] = await buildOf('B', driver);
    expect(again!.alreadyCurrent).toBe(true);
    expect(again!.version).toBe(b.version);
    await driver.close?.();
  });

  it('a file corrupted after it was written is caught before the pointer moves; the next run repairs it', async () => {
    const { driver } = kind.location();
    const [a] = await buildOf('A', driver);
    let corrupted = '';
    const error = await buildOf('B', driver, async (key) => {
      if (!key.endsWith('/manifest.json')) return;
      corrupted = key.replace('manifest.json', 'pages-100.identity.0');
      const object = (await driver.get(corrupted))!;
      const body = Buffer.from(object.body);
      const at = body.length >> 1;
      body[at] = body[at]! ^ 0x20; // same size, one bit flipped
      await driver.put(corrupted, body);
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionVerificationError);
    expect((error as Error).message).toContain('was NOT made current');
    expect((error as Error).message).toContain(corrupted);
    expect(await currentVersionOf(driver, GAME)).toBe(a!.version);
    expect((await readCurrentFully(driver, GAME)).ids).toEqual(catalogs.A.ids);

    const [b] = await buildOf('B', driver);
    // Every file but the corrupted one, and the manifest (of secret, claim, files, change record, manifest, pointer, check).
    expect(b!.skipped).toBe(freshWrites.length - 6);
    expect(b!.alreadyCurrent).toBe(false);
    expect((await readCurrentFully(driver, GAME)).ids).toEqual(catalogs.B.ids);
    await driver.close?.();
  });

  it('two concurrent builds: one wins, the other fails clearly and leaves its version unreferenced', async () => {
    const { driver } = kind.location();
    const [a] = await buildOf('A', driver);
    // Both runs have read the pointer once each has made its first write (its claim).
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const meet = () => {
      let first = true;
      return async () => {
        if (!first) return;
        first = false;
        if (++arrived === 2) release();
        await barrier;
      };
    };
    const results = await Promise.allSettled([buildOf('B', driver, meet()), buildOf('C', driver, meet())]);
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [{ name: (['B', 'C'] as const)[i]!, result: r.value[0]! }] : []));
    const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toBeInstanceOf(PublishConflictError);
    expect(lost[0]!.message).toMatch(/another build made .* current .* was NOT made current/);
    const loser = (lost[0] as PublishConflictError).version;
    const current = await readCurrentFully(driver, GAME);
    expect(current.version).toBe(won[0]!.result.version);
    expect(current.ids).toEqual(catalogs[won[0]!.name].ids);
    expect(current.version).not.toBe(a!.version);
    // The loser's version is complete in storage, but nothing points at it.
    expect(await driver.head(layout.manifest(GAME, loser))).not.toBeNull();

    // Running the loser again publishes its catalog (as a version newer than the winner's).
    const otherName = won[0]!.name === 'B' ? 'C' : 'B';
    const [again] = await buildOf(otherName, driver);
    expect(again!.version > current.version).toBe(true);
    expect((await readCurrentFully(driver, GAME)).ids).toEqual(catalogs[otherName].ids);
    await driver.close?.();
  });

  it('two concurrent CLI builds: at least one wins, a loser says so, and current is complete', async () => {
    const { out, driver } = kind.location();
    await buildOf('A', driver);
    const runs = await Promise.all([cli(out, 'B'), cli(out, 'C')]);
    expect(runs.some((run) => run.status === 0)).toBe(true);
    for (const run of runs) {
      if (run.status !== 0) {
        expect(run.status).toBe(1);
        expect(run.stderr).toMatch(/snapdeck build: .*was NOT made current/);
      }
    }
    const current = await readCurrentFully(driver, GAME);
    expect([catalogs.B.ids, catalogs.C.ids]).toContainEqual(current.ids);
    await driver.close?.();
  });

  it('never moves the pointer backwards: an earlier catalog comes back as a new, newer version', async () => {
    const { driver } = kind.location();
    const [a] = await buildOf('A', driver);
    const [b] = await buildOf('B', driver);
    const [a2] = await buildOf('A', driver);
    expect(a2!.version).not.toBe(a!.version);
    expect(a2!.version > b!.version).toBe(true);
    expect((await readCurrentFully(driver, GAME)).ids).toEqual(catalogs.A.ids);
    const [a3] = await buildOf('A', driver);
    expect(a3!.alreadyCurrent).toBe(true);

    // A current version stamped in the future (a fast clock somewhere): the next one sorts after it.
    const future = '2999-01-01T00-00-00-000Z-abcdef';
    const pointerKey = layout.pointer(GAME);
    await driver.put(pointerKey, Buffer.from(JSON.stringify(pointerSchema.parse({ version: future, publishedAt: new Date().toISOString() }))));
    const [c] = await buildOf('C', driver);
    expect(c!.version > future).toBe(true);
    expect(await currentVersionOf(driver, GAME)).toBe(c!.version);
    await driver.close?.();
  });
});

describe('S3 checksums', () => {
  it('an object replaced behind the driver, with its old metadata copied, is still caught', async () => {
    const out = s3.newLocation('tamper');
    const driver = s3.open(out);
    const [a] = await buildOf('A', driver);
    const client = new S3Client({ region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const prefix = out.slice(`s3://${s3.bucket}/`.length);
    const error = await buildOf('B', driver, async (key) => {
      if (!key.endsWith('/manifest.json')) return;
      const Key = `${prefix}/${key.replace('manifest.json', 'cards.gzip.0')}`;
      const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key }));
      const object = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key }));
      const body = Buffer.from(await object.Body!.transformToByteArray());
      body[body.length - 9] = body[body.length - 9]! ^ 0x01;
      await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: body, Metadata: head.Metadata }));
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionVerificationError);
    expect((error as Error).message).toContain('cards.gzip.0');
    expect(await currentVersionOf(driver, 'gundam')).toBe(a!.version);
    client.destroy();
    await driver.close();
  });
});
