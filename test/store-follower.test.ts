/**
 * The gateway side of the published store, in process: a request's lease pins one view across a
 * swap, a replaced part's file goes once no lease holds it (the cache folder stays bounded), keys
 * move ahead of a decks download, and a damaged part is never opened.
 */
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, readPointer } from '@snapdeck/snapshot';
import { KeyStore, StoreFollower, importDecks, openDatabase, orderOf, publishStore, storeLayout, type Db } from '@snapdeck/store';
import { deck, line } from './helpers/deck-db.ts';
import { FaultyDriver } from './helpers/faulty-driver.ts';
import { tempDir } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
let db: Db;
let driver: FsDriver;
let follower: StoreFollower;
const cacheDir = () => join(dir, 'cache');

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-follower-'));
  db = openDatabase(join(dir, 'writer.db'));
  driver = new FsDriver(join(dir, 'store'));
});
afterAll(async () => {
  await follower?.close();
  db?.close();
  await cleanup?.();
});

describe('StoreFollower', () => {
  it('pins a request to one view across a swap and removes the replaced file once released', async () => {
    const keys = new KeyStore(db);
    const first = keys.create({ name: 'first' }).key;
    await publishStore(db, driver);
    follower = new StoreFollower(driver, { cacheDir: cacheDir(), pollMs: 60_000 });
    await follower.start();
    const held = follower.acquire();
    expect(held.view.keys.authenticate(first)?.name).toBe('first');
    const partsBefore = await readdir(join(cacheDir(), 'parts'));

    const second = keys.create({ name: 'second' }).key;
    keys.revoke(first);
    await publishStore(db, driver);
    await follower.refresh();
    const fresh = follower.acquire();
    expect(fresh.view.keys.authenticate(second)?.name).toBe('second');
    expect(fresh.view.keys.authenticate(first)).toBeNull();
    // The held request still sees the version it started on, whole.
    expect(held.view.keys.authenticate(first)?.name).toBe('first');
    expect(held.view.keys.authenticate(second)).toBeNull();
    const oldAuth = partsBefore.find((name) => name.startsWith('auth-'))!;
    expect(existsSync(join(cacheDir(), 'parts', oldAuth))).toBe(true);
    held.release();
    expect(existsSync(join(cacheDir(), 'parts', oldAuth))).toBe(false);
    fresh.release();
    await follower.settled(); // the spare decks file, made in the background after the start (follower-decks.ts)
    const left = (await readdir(join(cacheDir(), 'parts'))).sort();
    const decksFile = left.find((name) => /^decks-[0-9a-f]{64}\.db$/.test(name));
    expect(left).toEqual([expect.stringMatching(/^auth-/), decksFile, `${decksFile}.spare`]);
  });

  it('serves a new key before the new decks have arrived, then the decks', async () => {
    const decks = Array.from({ length: 50 }, () => deck());
    await importDecks(db, decks.map(line));
    const key = new KeyStore(db).create({ name: 'with decks' }).key;
    await publishStore(db, driver);
    const version = (await readPointer(driver, storeLayout.pointer))!.version;
    await follower.refresh();
    // The auth part is swapped in by refresh itself; the decks arrive in the background.
    const early = follower.acquire();
    expect(early.view.keys.authenticate(key)).not.toBeNull();
    early.release();
    expect(follower.status().version).toBe(version);
    await follower.settled();
    const late = follower.acquire();
    expect(late.view.decks.getDeck(decks[0]!.id)?.name).toBe(decks[0]!.name);
    late.release();
    expect(follower.status()).toMatchObject({ version, decksVersion: version, ready: true, problem: null });
  });

  let repair: () => Promise<void>;

  it('never opens a part whose checksum does not match; keeps the previous version', async () => {
    const key = new KeyStore(db).create({ name: 'tampered' }).key;
    const before = follower.status().version;
    await publishStore(db, new FaultyDriver(driver, {
      afterWrite: async (written) => {
        // A storage fault after the writer's checks: the new auth segment is damaged once the
        // pointer has moved, before any gateway has read it.
        if (written === storeLayout.pointer) {
          const pointer = (await readPointer(driver, storeLayout.pointer))!;
          const manifest = JSON.parse((await driver.get(storeLayout.manifest(pointer.version)))!.body.toString());
          const segment = join(driver.location, storeLayout.segment('auth', manifest.parts.auth.sha256, 0));
          const good = await readFile(segment);
          repair = () => writeFile(segment, good);
          await writeFile(segment, Buffer.from('not the bytes the manifest names'));
        }
      },
    }));
    await follower.refresh();
    expect(follower.status().version).toBe(before);
    expect(follower.status().problem).toMatch(/does not match/);
    const lease = follower.acquire();
    expect(lease.view.keys.authenticate(key)).toBeNull();
    lease.release();
    expect((await readdir(join(cacheDir(), 'parts'))).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });

  it('damaged bytes are read again only after a backoff (5 s), and a repaired object is then used', async () => {
    const pointer = (await readPointer(driver, storeLayout.pointer))!.version;
    await repair();
    await follower.refresh();
    expect(follower.status().version).not.toBe(pointer); // still waiting out the damage
    expect(follower.status().problem).toMatch(/does not match/);
    await new Promise((resolve) => setTimeout(resolve, 5200));
    await follower.refresh();
    expect(follower.status()).toMatchObject({ version: pointer, problem: null });
  });
});

describe('the cache folder record', () => {
  it('a record written by a gateway before format 2 (the whole manifest) is still served from', async () => {
    await follower.settled();
    const { version } = follower.status();
    const manifest = JSON.parse(Buffer.from((await driver.get(storeLayout.manifest(version!)))!.body).toString());
    const cache = join(dir, 'legacy-cache');
    await mkdir(join(cache, 'parts'), { recursive: true });
    for (const part of ['auth', 'decks'] as const) {
      await copyFile(join(cacheDir(), 'parts', `${part}-${manifest.parts[part].sha256}.db`), join(cache, 'parts', `${part}-${manifest.parts[part].sha256}.db`));
    }
    await writeFile(join(cache, 'current.json'), JSON.stringify({ manifest, checkedAt: Date.now() }));
    const offline = new StoreFollower(new FsDriver(join(dir, 'no-store-here')), { cacheDir: cache, pollMs: 60_000 });
    try {
      await offline.start();
      expect(offline.status()).toMatchObject({ version, decksVersion: version, ready: true });
    } finally {
      await offline.close();
    }
  });
});

describe('versions only move forward', () => {
  it('a pointer to another store (a new writer after the pointer was deleted) is refused as unrelated', async () => {
    const location = new FsDriver(join(dir, 'lineage'));
    const first = openDatabase(join(dir, 'lineage-1.db'));
    const second = openDatabase(join(dir, 'lineage-2.db'));
    const gateway = new StoreFollower(location, { cacheDir: join(dir, 'lineage-cache'), pollMs: 60_000 });
    try {
      const kept = new KeyStore(first).create({ name: 'first store' }).key;
      await publishStore(first, location);
      await gateway.start();
      const served = gateway.status().version;
      await location.delete(storeLayout.pointer);
      const intruder = new KeyStore(second).create({ name: 'second store' }).key;
      await publishStore(second, location);
      await gateway.refresh();
      expect(gateway.status()).toMatchObject({ version: served, ready: true, refusedPointers: 1, refused: { reason: 'unrelated' } });
      const lease = gateway.acquire();
      expect(lease.view.keys.authenticate(kept)).not.toBeNull();
      expect(lease.view.keys.authenticate(intruder)).toBeNull();
      lease.release();
    } finally {
      await gateway.close();
      first.close();
      second.close();
    }
  });

  it('the writer moves a rolled-back store forward even with nothing new to publish, reusing its parts', async () => {
    const location = new FsDriver(join(dir, 'rolled'));
    const writer = openDatabase(join(dir, 'rolled.db'));
    try {
      const keys = new KeyStore(writer);
      const { record } = keys.create({ name: 'revoked later' });
      await publishStore(writer, location);
      const old = await location.get(storeLayout.pointer);
      keys.revoke(record.id);
      const own = await publishStore(writer, location);
      await location.put(storeLayout.pointer, old!.body);
      const next = await publishStore(writer, location);
      expect(next).toMatchObject({ alreadyCurrent: false, built: [], rolledBack: { own: own.version } });
      const manifest = (version: string) => JSON.parse(Buffer.from(readFileSync(join(location.location, storeLayout.manifest(version)))).toString());
      expect(manifest(next.version).sequence).toBe(manifest(own.version).sequence + 1);
      expect(manifest(next.version).parts).toEqual(manifest(own.version).parts);
      expect((await readPointer(location, storeLayout.pointer))!.version).toBe(next.version);
      expect((await publishStore(writer, location)).alreadyCurrent).toBe(true);
    } finally {
      writer.close();
    }
  });

  it('orders manifests from before sequences by version id, and below any sequenced one', () => {
    const legacy = (version: string) => ({ version, sequence: null, storeId: null });
    const sequenced = (version: string, sequence: number, storeId = '6f1c2d3e-0000-4000-8000-000000000001') => ({ version, sequence, storeId });
    const a = '2026-01-01T00-00-00-000Z-aaaaaa';
    const b = '2026-01-02T00-00-00-000Z-bbbbbb';
    const c = '2026-01-03T00-00-00-000Z-cccccc';
    expect(orderOf(null, legacy(a))).toBe('newer');
    expect(orderOf(legacy(a), legacy(b))).toBe('newer');
    expect(orderOf(legacy(b), legacy(a))).toBe('older');
    expect(orderOf(legacy(b), sequenced(a, 1))).toBe('newer');
    expect(orderOf(sequenced(b, 1), legacy(c))).toBe('older');
    expect(orderOf(sequenced(b, 2), sequenced(a, 3))).toBe('newer'); // the sequence decides, not the clock
    expect(orderOf(sequenced(b, 2), sequenced(c, 1))).toBe('older');
    expect(orderOf(sequenced(b, 2), sequenced(c, 2))).toBe('unrelated');
    expect(orderOf(sequenced(b, 2), sequenced(c, 3, '6f1c2d3e-0000-4000-8000-000000000002'))).toBe('unrelated');
    expect(orderOf(sequenced(b, 2), sequenced(b, 2))).toBe('same');
  });
});

describe('pruneStore', () => {
  it('removes old versions and the parts only they named, never the current one or a young one', async () => {
    const { pruneStore } = await import('@snapdeck/store');
    const location = new FsDriver(join(dir, 'pruned'));
    const writer = openDatabase(join(dir, 'prune.db'));
    try {
      const keys = new KeyStore(writer);
      for (let i = 0; i < 4; i++) {
        keys.create({ name: `k${i}` });
        await importDecks(writer, [line(deck())]);
        await publishStore(writer, location, { keep: 100 });
      }
      const before = await location.list(storeLayout.versionsPrefix);
      expect(before).toHaveLength(4);
      expect(await pruneStore(location, { keep: 1 })).toEqual({ versions: 0, bytes: 0 }); // all young
      const pruned = await pruneStore(location, { keep: 1, minAgeMs: 0 });
      expect(pruned.versions).toBe(2);
      expect(pruned.bytes).toBeGreaterThan(0);
      const after = (await location.list(storeLayout.versionsPrefix)).sort();
      expect(after).toEqual(before.sort().slice(2));
      // What is left is whole: a restore from it works.
      const { restoreStore } = await import('@snapdeck/store');
      const restored = await restoreStore(location, join(dir, 'pruned-restored.db'));
      expect(restored.keys).toBe(4);
      expect(restored.decks).toBe(4);
      // Every part a kept version names is still there; nothing else is.
      const parts = new Set((await location.list('_store/parts/')).map((key) => key.slice(0, key.lastIndexOf('/') + 1)));
      expect(parts.size).toBe(4);
    } finally {
      writer.close();
    }
  });
});
