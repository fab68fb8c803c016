/**
 * A restart from the cache folder: a `serve --store` gateway killed (SIGKILL) at any point of a
 * version swap and restarted from its `--cache-dir` while storage refuses every request serves the
 * view it served when it died: the keys and tokens, and the decks they were paired with then.
 * Storage is moto behind the fault-injecting proxy, which also makes the decks download take 8 s so
 * that the auth-only swap (new keys, decks still downloading) can be caught.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPointer, type StorageDriver } from '@snapdeck/snapshot';
import { KeyStore, importDecks, openDatabase, publishStore, storeLayout, type Db } from '@snapdeck/store';
import { buildGeneratedSnapshots } from './helpers/catalog.ts';
import { startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { deck, line } from './helpers/deck-db.ts';
import { startFaultProxy, type FaultProxy } from './helpers/fault-proxy.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

const DECKS = '/_store/parts/decks/';
let s3: S3TestServer;
let proxy: FaultProxy;
let dir: string;
let cleanup: () => Promise<void>;
let snapshots: string;
let location: string;
let db: Db;
let keys: KeyStore;
let store: StorageDriver;
let gateway: CliGateway;

async function status(path: string, key?: string): Promise<number> {
  const response = await fetch(`${gateway.url}${path}`, { headers: key ? { 'X-API-Key': key } : {} });
  await response.arrayBuffer();
  return response.status;
}
const keyStatus = (key: string) => status('/v1/games', key);
const deckStatus = (id: string) => status(`/v1/decks/${id}`);
const readyStore = async () => JSON.parse(await (await fetch(`${gateway.url}/readyz`)).text()).store as { version: string; decksVersion: string };
const pointer = async () => (await readPointer(store, storeLayout.pointer))!.version;

function start(): Promise<CliGateway> {
  return startCliGateway(['--snapshots', snapshots, '--store', location, '--cache-dir', join(dir, 'cache'), '--store-poll-ms', '200'], { env: proxy.env });
}

/** SIGKILL, then a restart while storage resets every request: what does it serve? */
async function killAndRestartOffline(): Promise<void> {
  gateway.child.kill('SIGKILL');
  await gateway.exited;
  proxy.clear();
  proxy.failFor(3_600_000);
  gateway = await start();
}

beforeAll(async () => {
  s3 = await startS3Server();
  proxy = await startFaultProxy(s3, { seed: 7 });
  ({ dir, cleanup } = await tempDir('snapdeck-store-restart-'));
  snapshots = await buildGeneratedSnapshots(dir, { digimon: 20, gundam: 20, 'grand-archive': 20, 'chrono-core': 20 });
  location = s3.newLocation('store');
  store = s3.open(location);
  db = openDatabase(join(dir, 'writer.db'));
  keys = new KeyStore(db);
});

afterAll(async () => {
  await gateway?.stop();
  db?.close();
  await store?.close?.();
  await proxy?.stop();
  await s3?.stop();
  await cleanup?.();
});

describe('restart from --cache-dir with storage unreachable, at every point of a swap', () => {
  const first = deck();
  const second = deck();
  const third = deck();
  let k1 = '';
  let k2 = '';
  let k3 = '';
  let v1 = '';
  let v2 = '';

  it('steady: one version, whole', async () => {
    k1 = keys.create({ name: 'one' }).key;
    await importDecks(db, [line(first)]);
    await publishStore(db, store);
    v1 = await pointer();
    gateway = await start();
    expect(await keyStatus(k1)).toBe(200);
    await killAndRestartOffline();
    expect(await keyStatus(k1)).toBe(200);
    expect(await deckStatus(first.id)).toBe(200);
    expect(await readyStore()).toMatchObject({ version: v1, decksVersion: v1 });
  });

  it('after an auth-only swap, the new decks still downloading: the new keys with the old decks', async () => {
    proxy.clear();
    await waitFor(async () => (await readyStore()).version === v1 && (await keyStatus(k1)) === 200, 10_000, 'not back online');
    proxy.slow(DECKS, 8000);
    k2 = keys.create({ name: 'two' }).key;
    await importDecks(db, [line(second)]);
    await publishStore(db, store);
    v2 = await pointer();
    await waitFor(async () => (await keyStatus(k2)) === 200, 10_000, 'the new keys were not served');
    expect(await deckStatus(second.id)).toBe(404); // its decks are still on their way
    await killAndRestartOffline();
    expect(await keyStatus(k2)).toBe(200);
    expect(await keyStatus(k1)).toBe(200);
    expect(await deckStatus(first.id)).toBe(200);
    expect(await deckStatus(second.id)).toBe(404);
    expect(await readyStore()).toMatchObject({ version: v2, decksVersion: v1 });
  });

  it('once the decks have arrived: the whole new version', async () => {
    proxy.clear();
    await waitFor(async () => (await deckStatus(second.id)) === 200, 20_000, 'the decks did not arrive');
    await killAndRestartOffline();
    expect(await keyStatus(k2)).toBe(200);
    expect(await deckStatus(second.id)).toBe(200);
    expect(await readyStore()).toMatchObject({ version: v2, decksVersion: v2 });
  });

  it('a second auth-only swap while decks download: the newest keys with the decks served then', async () => {
    proxy.clear();
    await waitFor(async () => (await readyStore()).version === v2, 10_000, 'not back online');
    proxy.slow(DECKS, 8000);
    await importDecks(db, [line(third)]);
    await publishStore(db, store);
    const v3 = await pointer();
    await waitFor(async () => (await readyStore()).version === v3, 10_000, 'v3 not followed');
    k3 = keys.create({ name: 'three' }).key;
    await publishStore(db, store);
    const v4 = await pointer();
    await waitFor(async () => (await keyStatus(k3)) === 200, 10_000, 'the newest keys were not served');
    expect(await deckStatus(third.id)).toBe(404);
    await killAndRestartOffline();
    expect(await keyStatus(k3)).toBe(200);
    expect(await deckStatus(second.id)).toBe(200);
    expect(await deckStatus(third.id)).toBe(404);
    expect(await readyStore()).toMatchObject({ version: v4, decksVersion: v2 });
    // Back online it completes the swap.
    proxy.clear();
    await waitFor(async () => (await deckStatus(third.id)) === 200, 20_000, 'the decks did not arrive after the restart');
    expect(await readyStore()).toMatchObject({ version: v4, decksVersion: v4 });
  });
});
