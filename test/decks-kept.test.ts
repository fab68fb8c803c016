/**
 * The gateway keeps the decks it read, and what was made of them (the format=json body, the parts
 * of POST /v1/decks/details), while the database does not change (store/src/decks/kept-decks.ts).
 * A change committed by another connection (`decks import` on the writer database) is served by
 * the very next request.
 */
import { copyFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idGenerator, importLines, startDeckEnv, startExtraGateway, type DeckLine, type DeckTestEnv } from './helpers/decks.ts';

let env: DeckTestEnv;
const newId = idGenerator(4242);

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 20, gundam: 5, 'grand-archive': 5, 'chrono-core': 5 });
});

afterAll(async () => {
  await env?.close();
});

const deck = (name: string, extra: Partial<DeckLine> = {}): DeckLine => ({
  id: newId(),
  gameId: 'digimon',
  name,
  ownerDisplayName: 'owner',
  visibility: 'public',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
  cards: [{ cardId: env.catalogs.digimon![3]!.id, quantity: 2 }],
  ...extra,
});

async function getDeck(id: string, gatewayUrl = env.gateway.url): Promise<{ status: number; etag: string | null; text: string }> {
  const response = await fetch(`${gatewayUrl}/v1/decks/${id}`);
  return { status: response.status, etag: response.headers.get('etag'), text: await response.text() };
}

async function details(ids: string[]): Promise<string> {
  const response = await fetch(`${env.gateway.url}/v1/decks/details`, { method: 'POST', headers: { 'X-API-Key': env.key, 'Content-Type': 'application/json' }, body: JSON.stringify({ ids }) });
  expect(response.status).toBe(200);
  return response.text();
}

describe('decks kept between requests', () => {
  it('GET /v1/decks/{deckId}: the same bytes and ETag while the deck is unchanged, the new ones at once after an import', async () => {
    const d = deck('First name');
    await importLines(env.dbFile, [d]);
    const first = await getDeck(d.id);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text).data.name).toBe('First name');
    expect(await getDeck(d.id)).toEqual(first);

    // Same updatedAt, another name: a changed deck all the same.
    await importLines(env.dbFile, [{ ...d, name: 'Second name' }]);
    const second = await getDeck(d.id);
    expect(JSON.parse(second.text).data.name).toBe('Second name');
    expect(second.etag).not.toBe(first.etag);

    await importLines(env.dbFile, [{ ...d, visibility: 'private' }]);
    expect((await getDeck(d.id)).status).toBe(404);
  });

  it('POST /v1/decks/details: the same bytes while nothing changed, the change at once after an import', async () => {
    const a = deck('Alpha');
    const b = deck('Beta');
    await importLines(env.dbFile, [a, b]);
    const ids = [a.id, b.id, 'not-a-deck', a.id];
    const first = await details(ids);
    expect(JSON.parse(first)).toEqual({
      data: {
        decks: [
          { id: a.id, gameId: 'digimon', name: 'Alpha', cards: [{ cardId: a.cards[0]!.cardId, quantity: 2, zoneId: expect.any(String) }] },
          { id: b.id, gameId: 'digimon', name: 'Beta', cards: [{ cardId: b.cards[0]!.cardId, quantity: 2, zoneId: expect.any(String) }] },
        ],
        unresolved: ['not-a-deck'],
      },
    });
    expect(await details(ids)).toBe(first);

    await importLines(env.dbFile, [{ ...b, name: 'Beta renamed' }, { id: a.id, deleted: true }]);
    expect(JSON.parse(await details(ids)).data).toEqual({
      decks: [{ id: b.id, gameId: 'digimon', name: 'Beta renamed', cards: expect.any(Array) }],
      unresolved: [a.id, 'not-a-deck'],
    });
  });

  it('through a --db that is a symbolic link, with a stale -shm left beside the link: a deck made private is 404 at once', async () => {
    // Operators point --db at a link swapped on deploys; SQLite's -shm is named after the file the
    // link resolves to, and a -shm of an earlier database of the link's name may still lie beside it.
    const link = join(env.dir, 'current.db');
    copyFileSync(`${env.dbFile}-shm`, `${link}-shm`);
    symlinkSync(env.dbFile, link);
    const linked = await startExtraGateway(env, { db: link });
    try {
      const d = deck('Linked');
      await importLines(env.dbFile, [d]);
      expect((await getDeck(d.id, linked.url)).status).toBe(200);
      await importLines(env.dbFile, [{ ...d, visibility: 'private' }]);
      expect((await getDeck(d.id, linked.url)).status).toBe(404);
      await importLines(env.dbFile, [{ ...d, visibility: 'public', name: 'Linked again' }]);
      expect(JSON.parse((await getDeck(d.id, linked.url)).text).data.name).toBe('Linked again');
      await importLines(env.dbFile, [{ id: d.id, deleted: true }]);
      expect((await getDeck(d.id, linked.url)).status).toBe(404);
    } finally {
      await linked.close();
    }
  });
});
