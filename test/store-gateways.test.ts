/**
 * Stateless gateways: a writer CLI publishes keys, tokens and decks to S3 (moto), two
 * `snapdeck serve --store` processes follow it, quotas are shared through Redis. Everything is a
 * real process; propagation is measured from the moment the writer command returns.
 */
import { createServer, type Server } from 'node:http';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newVersionId, readPointer, sha256Hex, swapPointer } from '@snapdeck/snapshot';
import { StoreFollower, storeLayout, storeManifestSchema } from '@snapdeck/store';
import { buildGeneratedSnapshots } from './helpers/catalog.ts';
import { runCli, startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { deck } from './helpers/deck-db.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { freePort } from './helpers/processes.ts';
import { startRedisServer, type RedisTestServer } from './helpers/redis-server.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

const SCOPES = ['--scope', 'decks:browse:public', '--scope', 'decks:read:public'];
const POLL = ['--store-poll-ms', '200'];

let s3: S3TestServer;
let redis: RedisTestServer;
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
const statusOn = async (gateway: CliGateway, key: string) => (await get(gateway.url, '/v1/decks/public?gameId=digimon&limit=5', key)).status;
const writer = (args: string[], extraEnv: Record<string, string> = {}) => runCli([...args], { env: { ...env, ...extraEnv }, timeoutMs: 60_000 });

/** Waits until `check` holds on every gateway; returns the ms it took. */
async function propagation(check: (gateway: CliGateway) => Promise<boolean>, gws = gateways, limitMs = 5000): Promise<number> {
  const started = Date.now();
  await waitFor(async () => (await Promise.all(gws.map(check))).every(Boolean), limitMs + 2000, 'not propagated');
  return Date.now() - started;
}

async function startFollower(cacheDir: string, extra: string[] = [], extraEnv: Record<string, string> = {}): Promise<CliGateway> {
  return startCliGateway(['--snapshots', snapshots, '--store', location, '--cache-dir', cacheDir, '--redis', redis.url, ...POLL, ...extra], { env: { ...env, ...extraEnv } });
}

beforeAll(async () => {
  [s3, redis] = await Promise.all([startS3Server(), startRedisServer()]);
  ({ dir, cleanup } = await tempDir('snapdeck-store-gw-'));
  snapshots = await buildGeneratedSnapshots(dir, { digimon: 40, gundam: 20, 'grand-archive': 20, 'chrono-core': 20 });
  location = s3.newLocation('store');
  writerDb = join(dir, 'writer.db');
  env = { ...s3.env, SNAPDECK_S3_MAX_ATTEMPTS: '2', SNAPDECK_S3_TIMEOUT_MS: '2000' };
  // The first publish, then two gateways following it.
  const first = await writer(['keys', 'create', '--name', 'ops', '--db', writerDb, '--publish', location]);
  expect(first.code, first.stderr).toBe(0);
  gateways = await Promise.all([startFollower(join(dir, 'cache-a')), startFollower(join(dir, 'cache-b'))]);
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await Promise.all([s3?.stop(), redis?.stop()]);
  await cleanup?.();
});

describe('two gateways following one published store', () => {
  let key = '';
  let keyId = '';

  it('a key created on the writer answers 200 on both gateways within 5 s', async () => {
    const created = await writer(['keys', 'create', '--name', 'partner', ...SCOPES, '--db', writerDb, '--publish', location]);
    expect(created.code, created.stderr).toBe(0);
    key = created.stdout.trim();
    keyId = /created (key_[0-9a-f]+)/.exec(created.stderr)![1]!;
    expect(created.stderr).toMatch(/published store version .* sent auth/);
    const ms = await propagation(async (g) => (await statusOn(g, key)) === 200);
    expect(ms).toBeLessThan(5000);
    for (const g of gateways) {
      const ready = JSON.parse((await get(g.url, '/readyz')).text);
      expect(ready.store.version).toBe((await readPointer(s3.open(location), storeLayout.pointer))!.version);
    }
  });

  it('imported decks are listed identically by both; a private deck opens with a share token and a pd_ link on both', async () => {
    const decks = Array.from({ length: 30 }, (_, i) => deck({ name: `Deck ${i}`, updatedAt: `2026-01-06T08:${String(i).padStart(2, '0')}:00.000Z` }));
    const hidden = deck({ visibility: 'private', name: 'Hidden' });
    const file = join(dir, 'decks.jsonl');
    await writeFile(file, [...decks, hidden].map((d) => JSON.stringify(d)).join('\n') + '\n');
    const imported = await writer(['decks', 'import', file, '--db', writerDb, '--publish', location]);
    expect(imported.code, imported.stderr).toBe(0);
    await propagation(async (g) => JSON.parse((await get(g.url, '/v1/decks/public?gameId=digimon&limit=50', key)).text).data?.totalCount === 30, gateways, 15_000);
    const [a, b] = await Promise.all(gateways.map((g) => get(g.url, '/v1/decks/public?gameId=digimon&limit=50', key)));
    expect(a!.status).toBe(200);
    expect(a!.text).toBe(b!.text);
    // A cursor from one gateway is valid on the other (the same signing key travels with the decks).
    const cursor = JSON.parse(a!.text).data.nextCursor as string;
    expect((await get(gateways[1]!.url, `/v1/decks/public?gameId=digimon&limit=50&startAfter=${cursor}`, key)).status).toBe(200);

    const share = await writer(['tokens', 'share', hidden.id, '--db', writerDb, '--publish', location]);
    const link = await writer(['tokens', 'private', hidden.id, '--db', writerDb, '--publish', location]);
    expect(share.code, share.stderr).toBe(0);
    expect(link.code, link.stderr).toBe(0);
    const ms = await propagation(async (g) => (await get(g.url, `/v1/decks/${hidden.id}?token=${link.stdout.trim()}`)).status === 200);
    expect(ms).toBeLessThan(5000);
    for (const g of gateways) {
      expect((await get(g.url, `/v1/decks/${hidden.id}`)).status).toBe(404);
      const viaShare = await get(g.url, `/v1/decks/${hidden.id}?token=${share.stdout.trim()}`);
      expect(viaShare.status).toBe(200);
      expect(JSON.parse(viaShare.text).data.name).toBe('Hidden');
    }
  });

  it('a corrupted object is never served: the version is refused, logged, and the previous one kept', async () => {
    const driver = s3.open(location);
    const pointer = (await readPointer(driver, storeLayout.pointer))!;
    const manifest = storeManifestSchema.parse(JSON.parse(Buffer.from((await driver.get(storeLayout.manifest(pointer.version)))!.body).toString()));
    // A new version whose auth part is stored with one byte flipped (its manifest names the good checksums).
    const good = (await driver.get(storeLayout.segment('auth', manifest.parts.auth.sha256, 0)))!.body;
    const bad = Buffer.from(good);
    bad[bad.length - 100] = bad[bad.length - 100]! ^ 0xff;
    const fakeSha = sha256Hex(Buffer.concat([Buffer.from('corrupt'), good]));
    await driver.put(storeLayout.segment('auth', fakeSha, 0), bad);
    const version = newVersionId();
    const corrupt = { ...manifest, version, base: pointer.version, sequence: manifest.sequence! + 1, parts: { ...manifest.parts, auth: { ...manifest.parts.auth, sha256: fakeSha } } };
    await driver.put(storeLayout.manifest(version), Buffer.from(JSON.stringify(corrupt)));
    await swapPointer(driver, storeLayout.pointer, version, pointer);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const g of gateways) {
      const ready = JSON.parse((await get(g.url, '/readyz')).text);
      expect(ready.store.version).toBe(pointer.version);
      expect(ready.store.problem).toMatch(/does not match/);
      expect(await statusOn(g, key)).toBe(200);
      expect(await readdir(join(dir, g === gateways[0] ? 'cache-a' : 'cache-b', 'parts'))).not.toContain(`auth-${fakeSha}.db`);
    }
    // The operator puts the pointer back; the writer goes on from there.
    const now = (await readPointer(driver, storeLayout.pointer))!;
    await swapPointer(driver, storeLayout.pointer, pointer.version, now);
    await driver.close();
  });

  it('keys revoke --publish --purge: 401 on both within 5 s, and the purge is sent only once both answer 401', async () => {
    const seenAtPurge: number[][] = [];
    const purgePort = await freePort();
    const cache: Server = createServer((req, res) => {
      void Promise.all(gateways.map((g) => statusOn(g, key))).then((statuses) => {
        seenAtPurge.push(statuses);
        res.writeHead(200).end('purged');
      });
      req.resume();
    });
    await new Promise<void>((resolve) => cache.listen(purgePort, '127.0.0.1', resolve));
    try {
      const revoked = await writer(['keys', 'revoke', keyId, '--db', writerDb, '--publish', location, '--purge', `http://127.0.0.1:${purgePort}/`]);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stderr).toMatch(/all 2 gateway\(s\) following \S+ serve \S+ \(after [\d.]+ s\)/); // published, then every gateway said so
      expect(seenAtPurge).toEqual([[401, 401]]);
      for (const g of gateways) expect(await statusOn(g, key)).toBe(401);
    } finally {
      cache.close();
    }
  });

  it('storage stopped: both keep serving their last version, and say how old it is; --max-store-age fails closed', async () => {
    const created = await writer(['keys', 'create', '--name', 'during-outage', ...SCOPES, '--db', writerDb, '--publish', location]);
    const live = created.stdout.trim();
    const strict = await startFollower(join(dir, 'cache-strict'), ['--max-store-age', '2']);
    await propagation(async (g) => (await statusOn(g, live)) === 200, [...gateways, strict]);
    s3.pause();
    try {
      await new Promise((resolve) => setTimeout(resolve, 3500));
      // A gateway starting now, with an empty cache, does not wait for a store that does not answer.
      const hanging = new StoreFollower(s3.open(location), { cacheDir: join(dir, 'cache-hanging'), startWaitMs: 500 });
      const startedAt = Date.now();
      await hanging.start();
      expect(Date.now() - startedAt).toBeLessThan(3000);
      expect(hanging.status()).toMatchObject({ ready: false, version: null });
      expect(() => hanging.acquire()).toThrow(/no store version loaded/);
      void hanging.close();
      // Fail closed: past its bound, keyed endpoints and single decks answer 500 and it is not ready.
      expect(await statusOn(strict, live)).toBe(500);
      expect((await get(strict.url, `/v1/decks/${deck().id}`)).status).toBe(500);
      expect((await get(strict.url, '/readyz')).status).toBe(503);
      for (const g of gateways) {
        expect(await statusOn(g, live)).toBe(200);
        const ready = JSON.parse((await get(g.url, '/readyz')).text);
        expect(ready.store.ageSeconds).toBeGreaterThanOrEqual(2);
        const metrics = (await get(g.url, '/metrics')).text;
        expect(Number(/^snapdeck_store_age_seconds (\S+)$/m.exec(metrics)![1])).toBeGreaterThanOrEqual(2);
        expect(metrics).toMatch(/^snapdeck_store_version\{version="[^"]+",decks_version="[^"]+"\} 1$/m);
      }
    } finally {
      s3.resume();
    }
    await waitFor(async () => JSON.parse((await get(gateways[0]!.url, '/readyz')).text).store.ageSeconds < 2, 15_000, 'age did not recover');
    await waitFor(async () => (await statusOn(strict, live)) === 200, 15_000, 'the strict gateway did not recover');
    await strict.stop();
  });

  it('a gateway restarted with an empty cache folder serves after downloading; one that cannot reach the store is not ready and answers 500', async () => {
    const created = await writer(['keys', 'create', '--name', 'restart', ...SCOPES, '--db', writerDb, '--publish', location]);
    const live = created.stdout.trim();
    await gateways[1]!.stop();
    gateways[1] = await startFollower(join(dir, 'cache-b-fresh'));
    expect(await statusOn(gateways[1]!, live)).toBe(200);

    const closedPort = await freePort();
    const lost = await startFollower(join(dir, 'cache-c'), [], { SNAPDECK_S3_ENDPOINT: `http://127.0.0.1:${closedPort}`, SNAPDECK_S3_MAX_ATTEMPTS: '1' });
    try {
      const ready = await get(lost.url, '/readyz');
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.text).store.version).toBeNull();
      for (const path of ['/v1/decks/public?gameId=digimon', '/v1/games']) {
        const answer = await get(lost.url, path, live);
        expect(answer.status).toBe(500);
        expect(JSON.parse(answer.text)).toEqual({ error: 'Internal server error' });
      }
      const single = await get(lost.url, `/v1/decks/${deck().id}`);
      expect(single.status).toBe(500);
      expect(JSON.parse(single.text)).toEqual({ error: 'Internal server error' });
    } finally {
      await lost.stop();
    }
  });

  it('two writers: the second publish is refused and changes nothing; store restore then publish works', async () => {
    const driver = s3.open(location);
    const before = (await readPointer(driver, storeLayout.pointer))!.version;
    const second = join(dir, 'second-writer.db');
    const made = await writer(['keys', 'create', '--name', 'rogue', '--db', second, '--publish', location]);
    expect(made.code).toBe(1);
    expect(made.stderr).toMatch(/restore first/);
    const rogue = made.stdout.trim();
    expect((await readPointer(driver, storeLayout.pointer))!.version).toBe(before);
    expect(await statusOn(gateways[0]!, rogue)).toBe(401);

    const restored = join(dir, 'restored.db');
    const restore = await writer(['store', 'restore', '--from', location, '--db', restored]);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(new RegExp(`from store version ${before}`));
    const noop = await writer(['store', 'publish', '--to', location, '--db', restored]);
    expect(noop.stdout).toMatch(/already current/);
    const fresh = await writer(['keys', 'create', '--name', 'after-restore', ...SCOPES, '--db', restored, '--publish', location]);
    expect(fresh.code, fresh.stderr).toBe(0);
    await propagation(async (g) => (await statusOn(g, fresh.stdout.trim())) === 200);
    // Decks and tokens came back too: the private deck's pd_ link still opens it on both.
    const listed = await Promise.all(gateways.map((g) => get(g.url, '/v1/decks/public?gameId=digimon&limit=50', fresh.stdout.trim())));
    expect(JSON.parse(listed[0]!.text).data.totalCount).toBe(30);
    expect(listed[0]!.text).toBe(listed[1]!.text);
    // The old writer is no longer the writer.
    const stale = await writer(['store', 'publish', '--to', location, '--db', writerDb]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/restore first/);
    await driver.close();
  });
});
