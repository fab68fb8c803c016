/**
 * No secrets in free pages: the published decks part is read by every gateway
 * and copied to every cache folder, so no API key id, prefix or hash and no token hash may be
 * anywhere in its bytes — not in a live row, not in a deleted one left in SQLite's free space.
 * The part is published to a real folder store and its segments are scanned byte by byte.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, readPointer } from '@snapdeck/snapshot';
import { DeckStore, KeyStore, hashSecret, importDecks, openDatabase, publishStore, readStoreManifest, storeLayout, stripSecrets, type Db } from '@snapdeck/store';
import { deck, line } from './helpers/deck-db.ts';
import { tempDir } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
let db: Db;
let driver: FsDriver;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-decks-part-'));
  db = openDatabase(join(dir, 'writer.db'));
  driver = new FsDriver(join(dir, 'store'));
});
afterAll(async () => {
  db?.close();
  await cleanup?.();
});

/** Every byte string that must never be in a decks part: each key's id, prefix, hash and name, each token's hash. */
const secrets: string[] = [];

function createKeys(count: number, revoke: number): void {
  const keys = new KeyStore(db);
  for (let i = 0; i < count; i++) {
    const { key, record } = keys.create({ name: `partner-${randomBytes(6).toString('hex')}`, scopes: ['decks:read:public'] });
    secrets.push(record.id, record.prefix, hashSecret(key), record.name);
    if (i < revoke) keys.revoke(record.id);
  }
}

function issueTokens(deckIds: string[]): void {
  const store = new DeckStore(db);
  for (const id of deckIds) {
    secrets.push(hashSecret(store.createShareToken(id, 3600)!), hashSecret(store.createPrivateLink(id)!));
  }
}

/** The bytes of the decks part the location's current version names, all segments joined. */
async function publishedDecksPart(): Promise<Buffer> {
  const pointer = (await readPointer(driver, storeLayout.pointer))!;
  const manifest = await readStoreManifest(driver, pointer.version);
  const ref = manifest.parts.decks;
  const segments = await Promise.all(ref.segments.map(async (_, n) => (await driver.get(storeLayout.segment('decks', ref.sha256, n)))!.body));
  return Buffer.concat(segments);
}

/** How many of the secrets the bytes hold, and the first few (a failure names what leaked). */
function leaked(bytes: Buffer): { count: number; first: string[] } {
  const found = secrets.filter((secret) => bytes.includes(Buffer.from(secret, 'utf8')));
  return { count: found.length, first: found.slice(0, 3) };
}
const none = { count: 0, first: [] };

describe('the published decks part', () => {
  it('holds no key id, prefix, hash or name and no token hash, live, revoked or deleted', async () => {
    const decks = Array.from({ length: 200 }, (_, i) => deck({ name: `Deck ${i}`, visibility: i % 3 === 0 ? 'private' : 'public' }));
    await importDecks(db, decks.map(line));
    // Enough keys and tokens to fill several pages, so deleting them frees whole pages too.
    createKeys(300, 100);
    issueTokens(decks.slice(0, 150).map((d) => d.id));
    // Deleted on the writer as well: a deck's tokens revoked, and a deck (with its tokens) removed.
    new DeckStore(db).revokeTokens(decks[1]!.id);
    await importDecks(db, [line({ id: decks[2]!.id, deleted: true })]);

    await publishStore(db, driver);
    const bytes = await publishedDecksPart();
    expect(bytes.length).toBeGreaterThan(100_000);
    // The scan can find what it looks for: the decks themselves are in the part.
    expect(bytes.includes(Buffer.from(decks[5]!.id))).toBe(true);
    expect(secrets.length).toBe(300 * 4 + 150 * 2);
    expect(leaked(bytes)).toEqual(none);
  });

  it('holds none after later changes either: a second decks part built after more keys, tokens and revocations', async () => {
    createKeys(50, 25);
    const more = Array.from({ length: 20 }, (_, i) => deck({ name: `Later ${i}` }));
    await importDecks(db, more.map(line));
    issueTokens(more.map((d) => d.id));
    const before = (await readPointer(driver, storeLayout.pointer))!.version;
    const result = await publishStore(db, driver);
    expect(result.version).not.toBe(before);
    expect(result.built).toContain('decks');
    expect(leaked(await publishedDecksPart())).toEqual(none);
  });

  it('a page-by-page copy of the writer (the backup API) stripped the same way holds none either', async () => {
    // More deletions on the writer first, so that its free pages once held key and token rows.
    const store = new DeckStore(db);
    const doomed = Array.from({ length: 40 }, (_, i) => deck({ name: `Doomed ${i}` }));
    await importDecks(db, doomed.map(line));
    issueTokens(doomed.map((d) => d.id));
    for (const d of doomed.slice(0, 20)) store.revokeTokens(d.id);
    await importDecks(db, doomed.slice(20).map((d) => line({ id: d.id, deleted: true })));
    const copy = join(dir, 'paged-copy.db');
    await db.backup(copy);
    const part = new Database(copy);
    try {
      stripSecrets(part);
      expect(part.prepare('SELECT COUNT(*) FROM decks').pluck().get()).toBe(220 - 1 + 20);
    } finally {
      part.close();
    }
    expect(leaked(await readFile(copy))).toEqual(none);
  });
});
