/**
 * Versions only move forward: a pointer that goes backwards must not bring revoked keys back. A
 * writer CLI publishes to S3 (moto), two `snapdeck serve --store` processes follow; then the
 * pointer object is overwritten with an older one (a bucket object-version restore, a stale
 * replica, anyone who can write that one object). The gateways refuse it, say so, keep serving, and
 * follow again once the writer moves the store forward; `store restore` will not take the old
 * pointer's word.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPointer } from '@snapdeck/snapshot';
import { storeLayout } from '@snapdeck/store';
import { buildGeneratedSnapshots } from './helpers/catalog.ts';
import { runCli, startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

let s3: S3TestServer;
let dir: string;
let cleanup: () => Promise<void>;
let snapshots: string;
let location: string;
let writerDb: string;
let env: Record<string, string>;
let gateways: CliGateway[] = [];

const get = async (base: string, path: string, key?: string) => {
  const response = await fetch(`${base}${path}`, { headers: key ? { 'X-API-Key': key } : {} });
  return { status: response.status, text: await response.text() };
};
const statusOn = async (gateway: CliGateway, key: string) => (await get(gateway.url, '/v1/games', key)).status;
const writer = (args: string[]) => runCli(args, { env, timeoutMs: 60_000 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Lines of the gateway's JSON log (stdout) whose message matches. */
const logLines = (gateway: CliGateway, pattern: RegExp) => gateway.output().stdout.split('\n').filter((line) => pattern.test(line));

function startFollower(cacheDir: string): Promise<CliGateway> {
  return startCliGateway(['--snapshots', snapshots, '--store', location, '--cache-dir', cacheDir, '--store-poll-ms', '200'], { env: { ...env, LOG_LEVEL: 'info' } });
}

beforeAll(async () => {
  s3 = await startS3Server();
  ({ dir, cleanup } = await tempDir('snapdeck-store-rollback-'));
  snapshots = await buildGeneratedSnapshots(dir, { digimon: 20, gundam: 20, 'grand-archive': 20, 'chrono-core': 20 });
  location = s3.newLocation('store');
  writerDb = join(dir, 'writer.db');
  env = { ...s3.env, SNAPDECK_S3_MAX_ATTEMPTS: '2', SNAPDECK_S3_TIMEOUT_MS: '2000' };
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await s3?.stop();
  await cleanup?.();
});

describe('a pointer put back to an older version', () => {
  let revokedKey = '';
  let revokedId = '';
  let laterKey = '';
  let newest = '';
  let oldPointer: Uint8Array;
  let oldVersion = '';

  it('is refused by both gateways: the revoked key stays 401; logged once, counted, shown by /readyz, still ready', async () => {
    const created = await writer(['keys', 'create', '--name', 'soon revoked', '--db', writerDb, '--publish', location]);
    expect(created.code, created.stderr).toBe(0);
    revokedKey = created.stdout.trim();
    revokedId = /created (key_[0-9a-f]+)/.exec(created.stderr)![1]!;
    const driver = s3.open(location);
    oldPointer = (await driver.get(storeLayout.pointer))!.body;
    oldVersion = (await readPointer(driver, storeLayout.pointer))!.version;
    gateways = await Promise.all([startFollower(join(dir, 'cache-a')), startFollower(join(dir, 'cache-b'))]);
    for (const g of gateways) expect(await statusOn(g, revokedKey)).toBe(200);

    const revoked = await writer(['keys', 'revoke', revokedId, '--db', writerDb, '--publish', location]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const later = await writer(['keys', 'create', '--name', 'created after', '--db', writerDb, '--publish', location]);
    expect(later.code, later.stderr).toBe(0);
    laterKey = later.stdout.trim();
    newest = (await readPointer(driver, storeLayout.pointer))!.version;
    await waitFor(async () => (await Promise.all(gateways.map((g) => statusOn(g, laterKey)))).every((s) => s === 200), 10_000, 'the newest version not served');
    for (const g of gateways) expect(await statusOn(g, revokedKey)).toBe(401);

    // The attack: v1's pointer object written back, unconditionally.
    await driver.put(storeLayout.pointer, oldPointer, { contentType: 'application/json' });
    await sleep(2500); // a dozen polls
    for (const g of gateways) {
      expect(await statusOn(g, revokedKey)).toBe(401);
      expect(await statusOn(g, laterKey)).toBe(200);
      const ready = await get(g.url, '/readyz');
      expect(ready.status).toBe(200);
      const store = JSON.parse(ready.text).store;
      expect(store.version).toBe(newest);
      expect(store.refused).toMatchObject({ version: oldVersion, reason: 'older' });
      const metrics = (await get(g.url, '/metrics')).text;
      expect(metrics).toMatch(/^snapdeck_store_refused_pointers_total 1$/m);
      expect(metrics).toMatch(/^snapdeck_store_pointer_refused 1$/m);
      // Once per distinct pointer, not once per poll.
      expect(logLines(g, new RegExp(`refus.*${oldVersion}`))).toHaveLength(1);
    }
    await driver.close();
  });

  it('a gateway restarted from its cache folder remembers what it served and refuses it too', async () => {
    await gateways[1]!.stop();
    gateways[1] = await startFollower(join(dir, 'cache-b'));
    expect(await statusOn(gateways[1]!, revokedKey)).toBe(401);
    expect(JSON.parse((await get(gateways[1]!.url, '/readyz')).text).store).toMatchObject({ version: newest, refused: { version: oldVersion } });
  });

  it('store restore refuses the old pointer unless told which version to take', async () => {
    const target = join(dir, 'restored.db');
    const refused = await writer(['store', 'restore', '--from', location, '--db', target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`names ${oldVersion}, older than ${newest}`);
    expect(refused.stderr).toMatch(/--version/);
    expect(refused.stderr).not.toMatch(/--force/);
    const taken = await writer(['store', 'restore', '--from', location, '--db', target, '--version', newest]);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stdout).toContain(`from store version ${newest}`);
    const keys = JSON.parse((await writer(['keys', 'list', '--db', target, '--json'])).stdout) as Array<{ id: string; revokedAt: string | null }>;
    expect(keys.find((k) => k.id === revokedId)!.revokedAt).not.toBeNull();
    const missing = await writer(['store', 'restore', '--from', location, '--db', join(dir, 'other.db'), '--version', '2020-01-01T00-00-00-000Z-abcdef']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/2020-01-01T00-00-00-000Z-abcdef/);
  });

  it('the writer says so in plain words and moves the store forward from its own database; the gateways follow', async () => {
    const next = await writer(['keys', 'create', '--name', 'after the rollback', '--db', writerDb, '--publish', location]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`the pointer at ${location} names ${oldVersion}, older than ${newest} which this database published`);
    expect(next.stderr).not.toMatch(/--force|restore/);
    const key = next.stdout.trim();
    const driver = s3.open(location);
    const moved = (await readPointer(driver, storeLayout.pointer))!.version;
    expect(moved > newest).toBe(true);
    const manifest = JSON.parse(Buffer.from((await driver.get(storeLayout.manifest(moved)))!.body).toString());
    const previous = JSON.parse(Buffer.from((await driver.get(storeLayout.manifest(newest)))!.body).toString());
    expect(manifest.sequence).toBeGreaterThan(previous.sequence);
    expect(manifest.storeId).toBe(previous.storeId);
    await driver.close();
    await waitFor(async () => (await Promise.all(gateways.map((g) => statusOn(g, key)))).every((s) => s === 200), 10_000, 'not followed');
    for (const g of gateways) {
      expect(await statusOn(g, revokedKey)).toBe(401);
      expect(await statusOn(g, laterKey)).toBe(200);
      const ready = JSON.parse((await get(g.url, '/readyz')).text).store;
      expect(ready.version).toBe(moved);
      expect(ready.refused).toBeUndefined();
      expect((await get(g.url, '/metrics')).text).toMatch(/^snapdeck_store_pointer_refused 0$/m);
    }
    // Nothing lost on the writer: the revoked key is revoked, the key made in between is there.
    const keys = JSON.parse((await writer(['keys', 'list', '--db', writerDb, '--json'])).stdout) as Array<{ id: string; name: string; revokedAt: string | null }>;
    expect(keys.find((k) => k.id === revokedId)!.revokedAt).not.toBeNull();
    expect(keys.map((k) => k.name)).toContain('created after');
  });
});
