/**
 * Expired objects come back by 304 (deploy/varnish/snapdeck.vcl sets `keep`): once a response's
 * max-age is over, the cache asks the gateway with If-None-Match and keeps its stored body when
 * the answer is 304. The shortest max-age the gateway sends is 60 s, so this file waits a little
 * over a minute (alone, so the rest of the suite runs meanwhile).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idGenerator, importLines, startDeckEnv, type DeckTestEnv } from './helpers/decks.ts';
import { waitFor } from './helpers/harness.ts';
import { gatewayRequests, rawRequest, startVarnish, type VarnishTestServer } from './helpers/varnish-server.ts';

let env: DeckTestEnv;
let cache: VarnishTestServer;
const deckId = idGenerator(31)();

beforeAll(async () => {
  // Every game built: the shipped VCL's probe routes only to a ready gateway (/readyz 200).
  env = await startDeckEnv({ gundam: 20, digimon: 5, 'grand-archive': 5, 'chrono-core': 5 });
  const cards = env.catalogs.gundam!.slice(0, 2).map((card) => ({ cardId: card.id, quantity: 2 }));
  await importLines(env.dbFile, [
    { id: deckId, gameId: 'gundam', name: 'refreshed', ownerDisplayName: 'me', visibility: 'public', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z', cards },
  ]);
  cache = await startVarnish({ backendPort: Number(new URL(env.gateway.url).port) });
});

afterAll(async () => {
  await cache?.stop();
  await env?.close();
});

describe('refresh through the cache', () => {
  it('an expired page (max-age 60) and a stale deck (max-age 60, stale-while-revalidate 30) are refreshed by 304', { timeout: 150_000 }, async () => {
    const page = { path: '/v1/games/gundam/cards?hitsPerPage=5', headers: { 'X-API-Key': env.key, 'Accept-Encoding': 'br' } };
    const deck = { path: `/v1/decks/${deckId}`, headers: { 'Accept-Encoding': 'gzip' } };
    const get = ({ path, headers }: { path: string; headers: Record<string, string> }) => rawRequest(`${cache.url}${path}`, { headers });

    const firstPage = await get(page);
    const firstDeck = await get(deck);
    expect([firstPage.headers['x-cache'], firstDeck.headers['x-cache']]).toEqual(['MISS', 'MISS']);
    expect(firstPage.headers['cache-control']).toBe('public, max-age=60');
    expect(firstDeck.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=30');
    const full = await gatewayRequests(env.gateway.url, 200);
    const notModified = await gatewayRequests(env.gateway.url, 304);

    // Past the page's max-age and Varnish's default grace (10 s), within the deck's grace.
    await new Promise((resolve) => setTimeout(resolve, 71_000));

    // The page: a conditional fetch the client waits for; the gateway answers 304, the client
    // gets the stored body in full.
    const refreshedPage = await get(page);
    expect(refreshedPage.status).toBe(200);
    expect(refreshedPage.body.equals(firstPage.body)).toBe(true);
    expect(refreshedPage.headers['etag']).toBe(firstPage.headers['etag']);
    expect(Number(refreshedPage.headers['age'])).toBeLessThan(5);
    expect(await gatewayRequests(env.gateway.url, 304)).toBe(notModified + 1);

    // The deck: served stale at once (within stale-while-revalidate) while the cache refreshes
    // it in the background, again by 304.
    const staleDeck = await get(deck);
    expect([staleDeck.status, staleDeck.headers['x-cache']]).toEqual([200, 'HIT']);
    expect(Number(staleDeck.headers['age'])).toBeGreaterThanOrEqual(60);
    expect(staleDeck.body.equals(firstDeck.body)).toBe(true);
    await waitFor(async () => (await gatewayRequests(env.gateway.url, 304)) === notModified + 2, 5000, 'no background 304 refresh of the deck');
    const freshDeck = await get(deck);
    expect([freshDeck.headers['x-cache'], Number(freshDeck.headers['age']) < 10]).toEqual(['HIT', true]);

    // Neither refresh sent a body again.
    expect(await gatewayRequests(env.gateway.url, 200)).toBe(full);
  });
});
