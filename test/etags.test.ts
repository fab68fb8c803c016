/**
 * CDN-ready HTTP (decisions.md): every GET that answers
 * 200 carries a strong ETag and answers If-None-Match with 304 and no body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idGenerator, importLines, startDeckEnv, type DeckTestEnv } from './helpers/decks.ts';

let env: DeckTestEnv;
let paths: Array<[string, Record<string, string>]>;

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 10, gundam: 10, 'grand-archive': 30, 'chrono-core': 30 });
  const id = idGenerator(5)();
  const cards = env.catalogs['grand-archive']!.slice(0, 3).map((card) => ({ cardId: card.id, quantity: 2, zoneId: 'main' }));
  await importLines(env.dbFile, [
    { id, gameId: 'grand-archive', name: 'Etag deck', ownerDisplayName: 'me', visibility: 'public', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z', cards },
  ]);
  const key = { 'X-API-Key': env.key };
  const first = await (await fetch(`${env.gateway.base}/games/chrono-core/cards?hitsPerPage=7`, { headers: key })).json() as { data: { cursor: string } };
  paths = [
    ['/v1/games', key],
    ['/v1/games/chrono-core/cards?hitsPerPage=7', key],
    [`/v1/games/chrono-core/cards?hitsPerPage=7&cursor=${encodeURIComponent(first.data.cursor)}`, key],
    [`/v1/games/grand-archive/cards/${env.catalogs['grand-archive']![0]!.id}`, key],
    ['/v1/decks/public?gameId=grand-archive', key],
    [`/v1/decks/${id}`, {}],
    [`/v1/decks/${id}?format=text`, {}],
    [`/v1/decks/${id}?format=ga-tts`, {}],
    [`/v1/decks/${id}/text?format=limitless`, key],
    ['/v1/openapi.json', {}],
    ['/healthz', {}],
    ['/readyz', {}],
  ];
});

afterAll(() => env?.close());

describe('ETags', () => {
  it('every GET that answers 200 has a strong ETag and a 304 for it', async () => {
    for (const [path, headers] of paths) {
      const response = await fetch(`${env.gateway.url}${path}`, { headers });
      expect(response.status, path).toBe(200);
      const etag = response.headers.get('etag');
      expect(etag, path).toMatch(/^"[^"]+"$/);
      const again = await fetch(`${env.gateway.url}${path}`, { headers: { ...headers, 'If-None-Match': etag! } });
      expect(again.status, path).toBe(304);
      expect(await again.text(), path).toBe('');
    }
  });
});
