import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build, encodeCursor, layout, manifestSchema, type StorageDriver } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { importLines } from './helpers/decks.ts';
import { getJson, startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

/**
 * A version deleted (as `snapdeck gc` does: manifest first, then every other file) while a
 * gateway still has it loaded and believes it present (the pointer TTL, which also spaces the
 * gateway's re-checks of a version's manifest, is a minute here): reading one of its pages from
 * storage finds nothing, and the answer is 400 `Invalid cursor`, never a 500. A request for the
 * current version whose loaded version was deleted that way is served from the new one.
 */
const GAME = 'gundam';
const HPP = 10;
let s3: S3TestServer;
let dir: string;
let cleanup: () => Promise<void>;
const savedEnv = { ...process.env };

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, s3.env);
  ({ dir, cleanup } = await tempDir('snapdeck-deleted-'));
});

afterAll(async () => {
  process.env = savedEnv;
  await s3?.stop();
  await cleanup?.();
});

let counter = 0;
const kinds: Array<{ name: string; location: () => { out: string; driver: StorageDriver } }> = [
  {
    name: 'local folder',
    location: () => {
      const out = join(dir, `snapshots-${++counter}`);
      return { out, driver: new FsDriver(out) };
    },
  },
  {
    name: 'S3',
    location: () => {
      const out = s3.newLocation('deleted');
      return { out, driver: s3.open(out) };
    },
  },
];

/** Deletes every file of a version, the manifest first (like gc). */
async function deleteVersion(driver: StorageDriver, version: string): Promise<void> {
  await driver.delete(layout.manifest(GAME, version));
  for (const key of await driver.list(layout.versionPrefix(GAME, version))) await driver.delete(key);
  expect(await driver.list(layout.versionPrefix(GAME, version))).toEqual([]);
}

/** A valid cursor for a page of a version, signed with the version's key (read from its manifest). */
async function cursorOf(driver: StorageDriver, version: string, page: number): Promise<string> {
  const object = await driver.get(layout.manifest(GAME, version));
  const manifest = manifestSchema.parse(JSON.parse(Buffer.from(object!.body).toString('utf8')));
  return encodeCursor(Buffer.from(manifest.cursorKey, 'base64url'), { game: GAME, hitsPerPage: HPP, version, page });
}

describe.each(kinds)('a version deleted while a gateway has it loaded, on a $name', (kind) => {
  const gateways: TestGateway[] = [];
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
  });

  async function setUp(): Promise<{ driver: StorageDriver; out: string; publish: (seed: number) => Promise<{ version: string; ids: string[] }> }> {
    const { out, driver } = kind.location();
    const catalog = join(dir, `catalog-${++counter}`);
    const publish = async (seed: number) => {
      const cards = await writeGeneratedCatalog(catalog, { [GAME]: 60 + seed }, seed);
      const [result] = await build({ catalogDir: catalog, storage: driver, hitsPerPage: [HPP] });
      return { version: result!.version, ids: cards[GAME]!.map((card) => card.id) };
    };
    return { driver, out, publish };
  }

  async function gatewayOn(out: string): Promise<{ gateway: TestGateway; headers: Record<string, string>; db: string }> {
    const db = join(dir, `gw-${++counter}.db`);
    const gateway = await startTestGateway({ snapshots: out, db, pointerTtlMs: 60_000 });
    gateways.push(gateway);
    return { gateway, headers: { 'X-API-Key': gateway.createKey() }, db };
  }

  it('a cursor of it gets 400 Invalid cursor, for an uncached page and then for a cached one', async () => {
    const { driver, out, publish } = await setUp();
    const old = (await publish(1)).version;
    await publish(2);
    const { gateway, headers } = await gatewayOn(out);
    const cursors = [await cursorOf(driver, old, 1), await cursorOf(driver, old, 2), await cursorOf(driver, old, 3)];

    // The gateway loads the old version and caches its page 1.
    const first = await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=${HPP}&cursor=${encodeURIComponent(cursors[0]!)}`, headers);
    expect(first.status).toBe(200);
    expect(first.body.data.totalHits).toBe(61);

    await deleteVersion(driver, old);
    const url = (cursor: string) => `${gateway.base}/games/${GAME}/cards?hitsPerPage=${HPP}&cursor=${encodeURIComponent(cursor)}`;
    // Page 2 was never read: the gateway goes to storage, finds the files gone: 400, not 500.
    const uncached = await getJson(url(cursors[1]!), headers);
    expect(uncached.status, uncached.text).toBe(400);
    expect(uncached.body).toEqual({ error: 'Invalid cursor' });
    // From then on the version is known to be gone: even its cached page 1 is refused.
    const cached = await getJson(url(cursors[0]!), headers);
    expect(cached.status).toBe(400);
    expect(cached.body).toEqual({ error: 'Invalid cursor' });
    expect((await getJson(url(cursors[2]!), headers)).status).toBe(400);

    // The current version is untouched.
    const now = await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=${HPP}`, headers);
    expect(now.status).toBe(200);
    expect(now.body.data.totalHits).toBe(62);
    const next = await getJson(url(now.body.data.cursor), headers);
    expect(next.status).toBe(200);
  });

  it('a request for the current version, whose loaded version was replaced and deleted, is served from the new one', async () => {
    const { driver, out, publish } = await setUp();
    const old = await publish(3);
    const { gateway, headers } = await gatewayOn(out);
    const firstPage = await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=${HPP}`, headers);
    expect(firstPage.body.data.totalHits).toBe(63);

    // A new build becomes current and the old one is deleted before the gateway looks at the
    // pointer again (a minute): its next uncached read finds nothing.
    const current = await publish(4);
    await deleteVersion(driver, old.version);
    const id = current.ids[5]!;
    const card = await getJson(`${gateway.base}/games/${GAME}/cards/${id}`, headers);
    expect(card.status, card.text).toBe(200);
    expect(card.body.data.id).toBe(id);
    const cursor = await cursorOf(driver, current.version, 1);
    const page = await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=${HPP}&cursor=${encodeURIComponent(cursor)}`, headers);
    expect(page.status, page.text).toBe(200);
    expect(page.body.data.totalHits).toBe(64);
    const fresh = await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=${HPP}`, headers);
    expect(fresh.status).toBe(200);
    expect(fresh.body.data.totalHits).toBe(64);
  });

  it('a deck export reads its cards from the new version when the loaded one was replaced and deleted', async () => {
    const { driver, out, publish } = await setUp();
    const old = await publish(5);
    const { gateway, headers, db } = await gatewayOn(out);
    expect((await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=${HPP}`, headers)).status).toBe(200);

    const current = await publish(6);
    await deleteVersion(driver, old.version);
    const deckId = '0b9c6a4e-6a0d-4c2e-9f5e-2d3c4b5a6f70';
    const cards = current.ids.slice(0, 3).map((cardId) => ({ cardId, quantity: 2, zoneId: 'main' }));
    await importLines(db, [
      { id: deckId, gameId: GAME, name: 'After gc', ownerDisplayName: 'me', visibility: 'public', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', cards },
    ]);
    const text = await getJson(`${gateway.base}/decks/${deckId}?format=text`);
    expect(text.status, text.text).toBe(200);
    for (const { cardId } of cards) {
      expect(text.text).toMatch(new RegExp(`^2 .+ \\(${cardId}\\)$`, 'm'));
      expect(text.text).not.toContain(`2 ${cardId} (${cardId})`); // a name, not the id standing in for one
    }
  });
});
