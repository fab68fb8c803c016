/**
 * Presence records: every gateway following a published store says at the
 * store's location what it serves, so that a purge can wait for all of them. In process, on a
 * real folder store with real SQLite parts: what a record says and when it is written, the
 * gateway id, the writer's wait (live, gone, lagging gateways), and that nothing else at the
 * location (prune, restore, gc) reads or removes a record.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, collectGarbage, readPointer } from '@snapdeck/snapshot';
import {
  GATEWAY_ID_PATTERN, KeyStore, StoreFollower, changeTarget, importDecks, openDatabase, pruneStore, publishStore, readPresence, readStoreManifest,
  restoreStore, servesChange, storeGatewaysStatus, storeLayout, waitForGateways, type Db, type PresenceRecord,
} from '@snapdeck/store';
import { deck, line } from './helpers/deck-db.ts';
import { FaultyDriver } from './helpers/faulty-driver.ts';
import { tempDir, waitFor } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
let db: Db;
let driver: FsDriver;
const followers: StoreFollower[] = [];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-presence-'));
  db = openDatabase(join(dir, 'writer.db'));
  driver = new FsDriver(join(dir, 'store'));
  await importDecks(db, Array.from({ length: 20 }, () => line(deck())));
  new KeyStore(db).create({ name: 'first' });
  await publishStore(db, driver);
});
afterAll(async () => {
  await Promise.all(followers.map((f) => f.close()));
  db?.close();
  await cleanup?.();
});

async function follow(options: { cacheDir?: string; presenceMs?: number; pollMs?: number; via?: FaultyDriver } = {}): Promise<StoreFollower> {
  const follower = new StoreFollower(options.via ?? driver, { cacheDir: options.cacheDir, pollMs: options.pollMs ?? 60_000, presenceMs: options.presenceMs ?? 60_000 });
  followers.push(follower);
  await follower.start();
  return follower;
}

const current = async () => (await readPointer(driver, storeLayout.pointer))!.version;
async function recordOf(id: string): Promise<PresenceRecord | null> {
  return (await readPresence(driver)).gateways.find((g) => g.record.gateway === id)?.record ?? null;
}
async function publishKeyChange(): Promise<string> {
  new KeyStore(db).create({ name: `k-${Date.now()}` });
  return (await publishStore(db, driver)).version;
}

describe('a gateway following the store', () => {
  it('records what it serves, rewrites it every interval, keeps its id in its cache folder, and removes the record when it stops', async () => {
    const counted = new FaultyDriver(driver);
    const cacheDir = join(dir, 'cache-a');
    const follower = await follow({ cacheDir, presenceMs: 200, via: counted });
    const id = (await readFile(join(cacheDir, 'gateway-id'), 'utf8')).trim();
    expect(id).toMatch(GATEWAY_ID_PATTERN);
    await waitFor(async () => (await recordOf(id)) !== null, 5000, 'no record');
    const version = await current();
    const manifest = await readStoreManifest(driver, version);
    expect(await recordOf(id)).toMatchObject({ version, decksVersion: version, decksPart: manifest.parts.decks.sha256, intervalMs: 200, pid: process.pid });

    // Rewritten every interval: about 10 PUTs in 2 s (one per 200 ms), nothing else written.
    const before = counted.writes.length;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const puts = counted.writes.slice(before);
    expect(new Set(puts)).toEqual(new Set([storeLayout.gateway(id)]));
    expect(puts.length).toBeGreaterThanOrEqual(6);
    expect(puts.length).toBeLessThanOrEqual(12);

    // A new version: written as soon as it is served (a key change names the same decks part again).
    const next = await publishKeyChange();
    await follower.refresh();
    await waitFor(async () => (await recordOf(id))?.version === next, 2000, 'record not updated');
    expect(servesChange((await recordOf(id))!, await changeTarget(driver, next))).toEqual({ auth: true, decks: true });

    await follower.close();
    expect(await driver.get(storeLayout.gateway(id))).toBeNull();
    // Restarted on the same cache folder: the same id (it replaces its own record).
    const again = await follow({ cacheDir });
    await waitFor(async () => (await recordOf(id)) !== null, 5000, 'no record after restart');
    await again.close();
    // Without a cache folder: a new id for each process.
    const [x, y] = [await follow(), await follow()];
    await waitFor(async () => (await readPresence(driver)).gateways.length === 2, 5000, 'no records');
    const ids = (await readPresence(driver)).gateways.map((g) => g.record.gateway);
    expect(ids.every((i) => GATEWAY_ID_PATTERN.test(i) && i !== id)).toBe(true);
    await Promise.all([x.close(), y.close()]);
    expect((await readPresence(driver)).gateways).toEqual([]);
  });

  it('says it serves a new version only once no request still reads the version it replaced', async () => {
    const follower = await follow({ cacheDir: join(dir, 'cache-lease') });
    const id = (await readFile(join(dir, 'cache-lease', 'gateway-id'), 'utf8')).trim();
    await waitFor(async () => (await recordOf(id))?.version === (await current()), 5000, 'no record');
    const held = follower.acquire();
    const next = await publishKeyChange();
    await follower.refresh();
    expect(follower.status().version).toBe(next);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await recordOf(id))!.version).not.toBe(next); // a request is still answering from the old view
    held.release();
    await waitFor(async () => (await recordOf(id))?.version === next, 2000, 'record not updated after the release');
    await follower.close();
  });
});

describe('the writer waiting for the gateways', () => {
  it('waits for every live gateway to serve the keys and the decks; ignores gone and unreadable records; names laggards at the timeout', async () => {
    const fast = await follow({ cacheDir: join(dir, 'cache-fast') });
    const slow = await follow({ cacheDir: join(dir, 'cache-slow') });
    const [fastId, slowId] = (await Promise.all(['cache-fast', 'cache-slow'].map(async (d) => (await readFile(join(dir, d, 'gateway-id'), 'utf8')).trim()))) as [string, string];
    await waitFor(async () => (await readPresence(driver)).gateways.length === 2, 5000, 'no records');
    // A gateway that died long ago (its record not rewritten for 3 intervals), and garbage.
    const deadId = 'gw_00000000000000aa';
    const dead: PresenceRecord = { ...(await recordOf(fastId))!, gateway: deadId, version: '2020-01-01T00-00-00-000Z-000000', writtenAt: new Date(Date.now() - 10 * 60_000).toISOString() };
    await driver.put(storeLayout.gateway(deadId), Buffer.from(JSON.stringify(dead)));
    await driver.put(storeLayout.gateway('gw_garbage'), Buffer.from('{"not": "a record"'));

    // New decks: both gateways must download them. Only `fast` is told to look.
    await importDecks(db, [line(deck({ name: 'new deck' }))]);
    const version = (await publishStore(db, driver)).version;
    const target = await changeTarget(driver, version);
    await fast.refresh();
    await fast.settled();
    const timedOut = await waitForGateways(driver, target, { timeoutMs: 600, pollMs: 50 });
    expect(timedOut.laggards.map((r) => r.gateway)).toEqual([slowId]);
    expect(timedOut.ready.map((r) => r.gateway)).toEqual([fastId]);
    expect(timedOut.waitedMs).toBeGreaterThanOrEqual(600);
    const status = await storeGatewaysStatus(driver);
    expect(status.current?.version).toBe(version);
    expect(status.unreadable).toEqual([storeLayout.gateway('gw_garbage')]);
    expect(status.gateways.find((g) => g.record.gateway === deadId)).toMatchObject({ gone: true });
    expect(status.gateways.find((g) => g.record.gateway === slowId)).toMatchObject({ gone: false, serves: { auth: false, decks: false } });

    // Once `slow` has the keys but not yet the decks, it is still waited for; then it has both.
    const waiting = waitForGateways(driver, target, { timeoutMs: 10_000, pollMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await slow.refresh();
    await slow.settled();
    const done = await waiting;
    expect(done.laggards).toEqual([]);
    expect(done.ready.map((r) => r.gateway).sort()).toEqual([fastId, slowId].sort());
    expect(done.waitedMs).toBeGreaterThanOrEqual(300);
    await Promise.all([fast.close(), slow.close()]);
    // Nobody left: nothing to wait for. A record not rewritten for over a day is removed by the wait.
    const ancient = { ...dead, gateway: 'gw_00000000000000bb', writtenAt: new Date(Date.now() - 2 * 86_400_000).toISOString() };
    await driver.put(storeLayout.gateway(ancient.gateway), Buffer.from(JSON.stringify(ancient)));
    expect((await waitForGateways(driver, target, { timeoutMs: 5000 })).waitedMs).toBeLessThan(1000);
    expect(await driver.get(storeLayout.gateway(ancient.gateway))).toBeNull();
    expect(await driver.get(storeLayout.gateway(deadId))).not.toBeNull();
  });

  it('a decks part named again by a later version counts as served, whatever version a gateway took it from', () => {
    const record = { version: 'b', decksVersion: 'a', decksPart: 'x'.repeat(64) } as PresenceRecord;
    expect(servesChange(record, { version: 'b', decksPart: 'x'.repeat(64) })).toEqual({ auth: true, decks: true });
    expect(servesChange(record, { version: 'b', decksPart: 'y'.repeat(64) })).toEqual({ auth: true, decks: false });
    expect(servesChange(record, { version: 'c', decksPart: 'x'.repeat(64) })).toEqual({ auth: false, decks: true });
  });
});

describe('presence records beside the store versions', () => {
  it('are never read or removed by pruning, gc or restore, and a restore does not see them', async () => {
    const follower = await follow({ cacheDir: join(dir, 'cache-beside') });
    await waitFor(async () => (await readPresence(driver)).gateways.length === 1, 5000, 'no record');
    const record = storeLayout.gateway((await readPresence(driver)).gateways[0]!.record.gateway);
    for (let i = 0; i < 3; i++) await publishKeyChange();
    expect((await pruneStore(driver, { keep: 0, minAgeMs: 0 })).versions).toBeGreaterThan(0);
    await collectGarbage({ storage: driver, keep: 0, minAgeHours: 0 });
    expect(await driver.get(record)).not.toBeNull();
    const restored = await restoreStore(driver, join(dir, 'restored.db'));
    expect(restored.version).toBe(await current());
    expect(await driver.get(record)).not.toBeNull();
    // And a record never names a path inside a version's objects.
    expect(record.startsWith(storeLayout.gatewaysPrefix)).toBe(true);
    expect(record.startsWith(storeLayout.versionsPrefix) || record.startsWith('_store/parts/')).toBe(false);
    await follower.close();
  });
});
