/**
 * Deck changes cost what changed. A writer database of a few thousand decks published
 * to a real folder store with deltas on (deltaMinBytes 0: below 16 MiB parts are otherwise sent
 * whole), followed by in-process StoreFollowers reading through a CountingDriver, so the bytes
 * uploaded and downloaded per import are counted, not assumed.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, readPointer } from '@snapdeck/snapshot';
import {
  DeckStore, KeyStore, StoreFollower, hashSecret, importDecks, openDatabase, publishStore, readStoreManifest, restoreStore, storeLayout, storedUnder, type Db, type StorePublishOptions,
} from '@snapdeck/store';
import { CountingDriver } from './helpers/counting-driver.ts';
import { deck, line } from './helpers/deck-db.ts';
import { tempDir, waitFor } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
let db: Db;
let folder: FsDriver;
let writer: CountingDriver;
const followers: StoreFollower[] = [];
const OPTIONS: StorePublishOptions = { deltaMinBytes: 0 };

const cards = (n: number) => Array.from({ length: 30 }, (_, i) => ({ cardId: `BT${n % 9}-${String(i).padStart(3, '0')}`, quantity: 1 + (i % 4), zoneId: 'main' }));
const someDecks = (count: number, tag: string) => Array.from({ length: count }, (_, i) => deck({ name: `${tag} ${i}`, cards: cards(i), viewCount: (i * 7919) % 1000 }));

async function follow(cacheDir?: string): Promise<{ follower: StoreFollower; counter: CountingDriver }> {
  const counter = new CountingDriver(new FsDriver(folder.location));
  const follower = new StoreFollower(counter, { pollMs: 600_000, presenceMs: 600_000, cacheDir });
  followers.push(follower);
  await follower.start();
  await follower.settled();
  return { follower, counter };
}

/** Polls until the follower serves the pointer's version, keys and decks alike. */
async function caughtUp(follower: StoreFollower): Promise<void> {
  const pointer = (await readPointer(folder, storeLayout.pointer))!;
  await waitFor(async () => {
    await follower.refresh();
    await follower.settled();
    const status = follower.status();
    return status.version === pointer.version && status.decksVersion === pointer.version;
  }, 15_000, 'the follower did not catch up');
}

function serves(follower: StoreFollower, id: string): boolean {
  const lease = follower.acquire();
  try {
    return lease.view.decks.getDeck(id) !== null;
  } finally {
    lease.release();
  }
}

async function currentManifest() {
  return readStoreManifest(folder, (await readPointer(folder, storeLayout.pointer))!.version);
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-decks-delta-'));
  db = openDatabase(join(dir, 'writer.db'));
  folder = new FsDriver(join(dir, 'store'));
  writer = new CountingDriver(folder);
  await importDecks(db, someDecks(3000, 'Base').map(line));
  const first = await publishStore(db, writer, OPTIONS);
  expect(first.decks).toBe('whole');
});

afterAll(async () => {
  for (const follower of followers) await follower.close();
  db?.close();
  await cleanup?.();
});

describe('incremental decks parts', () => {
  it('an import uploads and downloads only the changed pages; the follower serves the new decks', async () => {
    const { follower, counter } = await follow();
    const size = (await currentManifest()).parts.decks.size;
    const startBytes = follower.status().downloadedBytes!;
    // A follower starting empty downloads the whole part once (and the small auth part).
    expect(startBytes).toBeGreaterThanOrEqual(size);
    expect(startBytes).toBeLessThan(size * 1.1);

    // Keys and tokens written and revoked meanwhile: not one byte of them may travel in a delta.
    const keys = new KeyStore(db);
    const secrets: string[] = [];
    for (let i = 0; i < 50; i++) {
      const { key, record } = keys.create({ name: `delta-partner-${i}` });
      secrets.push(record.id, hashSecret(key));
      if (i % 2 === 0) keys.revoke(record.id);
    }
    const added = someDecks(10, 'Added');
    await importDecks(db, added.map(line));
    const tokens = new DeckStore(db);
    for (const d of added) secrets.push(hashSecret(tokens.createShareToken(d.id, 3600)!));
    tokens.revokeTokens(added[0]!.id);
    writer.reset();
    const result = await publishStore(db, writer, OPTIONS);
    expect(result.decks).toBe('delta');
    counter.reset();
    await caughtUp(follower);
    const downloaded = follower.status().downloadedBytes! - startBytes;
    const pieces = counter.keysRead.filter((key) => key.includes('/d-'));
    console.log(`10 decks into 3,000 (${size} bytes): ${result.bytesSent} bytes uploaded (${writer.keysWritten.length} objects), ${downloaded} downloaded (${counter.keysRead.length} objects read)`);
    expect(result.bytesSent).toBeLessThan(size / 5);
    expect(downloaded).toBeGreaterThan(0);
    expect(downloaded).toBeLessThan(size / 5);
    expect(pieces.length).toBeGreaterThan(0);
    // Pieces are stored deflated: scanned as a gateway reads them.
    const deltaBytes = Buffer.concat(await Promise.all(pieces.map(async (key) => inflateRawSync((await folder.get(key))!.body))));
    expect(deltaBytes.includes(Buffer.from(added[1]!.id))).toBe(true); // the scan finds what is there
    expect(secrets.filter((secret) => deltaBytes.includes(Buffer.from(secret)))).toEqual([]);
    expect(counter.keysRead.some((key) => /parts\/decks\/[0-9a-f]+\/\d+$/.test(key))).toBe(false); // no decks base segment read again
    for (const d of added) expect(serves(follower, d.id)).toBe(true);
    const manifest = await currentManifest();
    expect(manifest.parts.decks.base).toBeDefined();
    expect(manifest.parts.decks.deltas).toHaveLength(1);
  });

  it('successive imports: each costs a follower that import\'s delta alone (the spare file patched in place)', async () => {
    const { follower } = await follow();
    const costs: Array<[number, number]> = [];
    for (let round = 0; round < 4; round++) {
      await importDecks(db, someDecks(5, `Successive ${round}`).map(line));
      const before = follower.status().downloadedBytes!;
      const result = await publishStore(db, writer, OPTIONS);
      expect(result.decks).toBe('delta');
      await caughtUp(follower);
      costs.push([result.bytesSent, follower.status().downloadedBytes! - before]);
    }
    console.log(`successive imports, bytes sent / downloaded: ${costs.map(([sent, got]) => `${sent} / ${got}`).join(', ')}`);
    // The delta's pieces, never the previous import's again (the bytes sent include the manifest).
    for (const [sent, got] of costs) expect(got).toBeLessThanOrEqual(sent);
  });

  it('after a start the first import is patched in place too: the spare is made in the background, and becomes the new decks file', async () => {
    const cacheDir = join(dir, 'cache-start');
    const { follower } = await follow(cacheDir); // settled: the spare is ready
    const parts = join(cacheDir, 'parts');
    const spares = (await readdir(parts)).filter((name) => name.endsWith('.spare'));
    expect(spares, 'one spare, a copy of the served decks file').toHaveLength(1);
    const served = join(parts, spares[0]!.replace(/\.spare$/, ''));
    expect((await readFile(join(parts, spares[0]!))).equals(await readFile(served))).toBe(true);
    const spareInode = (await stat(join(parts, spares[0]!))).ino;
    const added = someDecks(5, 'After start');
    await importDecks(db, added.map(line));
    expect((await publishStore(db, writer, OPTIONS)).decks).toBe('delta');
    await caughtUp(follower);
    const decksFile = join(parts, `decks-${(await currentManifest()).parts.decks.sha256}.db`);
    // The spare patched in place and renamed, not the served file copied (a pass over all of it).
    expect((await stat(decksFile)).ino).toBe(spareInode);
    for (const d of added) expect(serves(follower, d.id)).toBe(true);
  });

  it('a follower that missed several versions applies only the deltas it lacks; one starting empty gets base + chain', async () => {
    const cacheDir = join(dir, 'cache-missed');
    const first = await follow(cacheDir);
    await first.follower.close();
    followers.splice(followers.indexOf(first.follower), 1);
    const added = [];
    const sent: number[] = [];
    for (let round = 0; round < 3; round++) {
      const decks = someDecks(5, `Missed ${round}`);
      added.push(...decks);
      await importDecks(db, decks.map(line));
      const result = await publishStore(db, writer, OPTIONS);
      expect(result.decks).toBe('delta');
      sent.push(result.bytesSent);
    }
    const again = await follow(cacheDir);
    await caughtUp(again.follower);
    const size = (await currentManifest()).parts.decks.size;
    const downloaded = again.follower.status().downloadedBytes!;
    console.log(`3 missed versions (${sent.join(' + ')} bytes sent): caught up with ${downloaded} bytes downloaded (part ${size})`);
    expect(downloaded).toBeLessThan(size / 2);
    for (const d of added) expect(serves(again.follower, d.id)).toBe(true);

    const fresh = await follow();
    expect(fresh.follower.status().decksVersion).toBe(again.follower.status().decksVersion);
    for (const d of added) expect(serves(fresh.follower, d.id)).toBe(true);
  });

  it('a damaged delta piece is refused: the previous decks stay served', async () => {
    const { follower } = await follow();
    const before = follower.status().decksVersion;
    const added = someDecks(3, 'Damaged');
    await importDecks(db, added.map(line));
    await publishStore(db, writer, OPTIONS);
    const ref = (await currentManifest()).parts.decks;
    const piece = ref.deltas!.at(-1)!.pieces[0]!;
    const file = join(folder.location, ...storeLayout.deltaPiece('decks', storedUnder(ref), piece.sha256).split('/'));
    const bytes = await readFile(file);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    await writeFile(file, bytes);
    await follower.refresh();
    await follower.settled();
    const status = follower.status();
    expect(status.decksVersion).toBe(before);
    expect(status.problem ?? '').toMatch(/does not match its SHA-256/);
    expect(serves(follower, added[0]!.id)).toBe(false);
    // Put back as it was, for the tests after this one.
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    await writeFile(file, bytes);
  });

  it('a delta that does not make the page hashes the manifest names is refused: the previous decks stay served', async () => {
    const { follower } = await follow();
    await importDecks(db, someDecks(2, 'Fast path').map(line));
    await publishStore(db, writer, OPTIONS);
    await caughtUp(follower); // the page hashes of the served file are known from here on
    const before = follower.status().decksVersion;
    const added = someDecks(3, 'Forged root');
    await importDecks(db, added.map(line));
    const good = await publishStore(db, writer, OPTIONS);
    expect(good.decks).toBe('delta');
    // A version naming the same delta with another page root, made current by hand.
    const manifest = await readStoreManifest(folder, good.version);
    const forged = { ...manifest, version: `${good.version.slice(0, -6)}ffffff`, sequence: manifest.sequence! + 1 };
    forged.parts.decks = { ...manifest.parts.decks, pageRoot: 'f'.repeat(64) };
    await folder.put(storeLayout.manifest(forged.version), Buffer.from(JSON.stringify(forged)));
    const pointer = (await folder.get(storeLayout.pointer))!;
    await folder.put(storeLayout.pointer, Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(pointer.body).toString()), version: forged.version })));
    await follower.refresh();
    await follower.settled();
    expect(follower.status().decksVersion).toBe(before);
    expect(follower.status().problem ?? '').toMatch(/does not match its page hashes/);
    expect(serves(follower, added[0]!.id)).toBe(false);
    // Put back: the writer's own version current again, published on.
    await folder.put(storeLayout.pointer, pointer.body);
    await folder.delete(storeLayout.manifest(forged.version));
  });

  it('a store restored from a chain of deltas holds every deck', async () => {
    const target = join(dir, 'restored.db');
    const restored = await restoreStore(folder, target);
    const count = db.prepare('SELECT COUNT(*) FROM decks').pluck().get();
    expect(restored.decks).toBe(count);
  });

  it('compaction: past the threshold the part goes whole again with a bridge; followers still download only the change, under load; old bases are pruned', async () => {
    const { follower } = await follow();
    const options: StorePublishOptions = { deltaMinBytes: 0, rebaseRatio: 0.3, keep: 0, pruneMinAgeMs: 0 };
    // Requests all along: every lease sees one whole view.
    let stop = false;
    let reads = 0;
    const probe = someDecks(1, 'Probe')[0]!;
    await importDecks(db, [line(probe)]);
    await publishStore(db, writer, OPTIONS);
    await caughtUp(follower);
    const load = (async () => {
      while (!stop) {
        const lease = follower.acquire();
        try {
          expect(lease.view.decks.getDeck(probe.id)?.name).toBe(probe.name);
          reads += 1;
        } finally {
          lease.release();
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const kinds: string[] = [];
    let bridged = 0;
    for (let round = 0; round < 6; round++) {
      await importDecks(db, someDecks(20, `Compaction ${round}`).map(line));
      const before = follower.status().downloadedBytes!;
      const result = await publishStore(db, writer, options);
      kinds.push(result.decks!);
      await caughtUp(follower);
      if (result.decks === 'rebase') bridged = follower.status().downloadedBytes! - before;
      if (result.decks === 'rebase') expect(bridged).toBeLessThan(result.sizes.decks / 5);
    }
    stop = true;
    await load;
    console.log(`compaction rounds: ${kinds.join(', ')}; a follower downloaded ${bridged} bytes across a rebase; ${reads} reads during`);
    expect(kinds).toContain('rebase');
    expect(kinds).toContain('delta');
    expect(reads).toBeGreaterThan(0);
    // Only bases named by kept versions are left (keep 0, no minimum age: the current one alone).
    const manifest = await currentManifest();
    const bases = new Set((await folder.list('_store/parts/decks/')).map((key) => key.split('/')[3]));
    expect([...bases]).toEqual([storedUnder(manifest.parts.decks)]);
    // The writer keeps one copy: the one it last published.
    expect((await readdir(`${db.name}.store-decks`)).sort()).toEqual([`${manifest.parts.decks.sha256}.db`]);
  });
});
