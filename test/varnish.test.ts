/**
 * The shipped cache configuration, deploy/varnish/snapdeck.vcl, run by a real Varnish (Debian's
 * 7.1, started here on 127.0.0.1 with only its backend port changed) in front of a real gateway
 * (the shipped cache configuration). Requests that reach the gateway are counted at its /metrics.
 * The 304 refresh of an expired object (keep) is in varnish-refresh.test.ts: it waits a minute.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeckStore, KeyStore } from '@snapdeck/store';
import { runCli } from './helpers/cli-gateway.ts';
import { idGenerator, importLines, startDeckEnv, startExtraGateway, withDb, type DeckLine, type DeckTestEnv } from './helpers/decks.ts';
import { waitFor } from './helpers/harness.ts';
import { freePort } from './helpers/processes.ts';
import { gatewayRequests, rawRequest, startVarnish, type RawResponse, type VarnishTestServer } from './helpers/varnish-server.ts';

const GAMES = { digimon: 250, gundam: 40, 'grand-archive': 40, 'chrono-core': 40 } as const;
const RATE_LIMIT_FIELDS = ['ratelimit', 'ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];
const KEYED_VARY = 'Accept-Encoding, X-API-Key';

let env: DeckTestEnv;
let cache: VarnishTestServer;
const newId = idGenerator(909);
/** Public decks: [0] for reading, [1] made private and [2] deleted by the purge tests. */
const publicDecks = [newId(), newId(), newId()];
const privateDeck = newId();
let privateLink: string;

const deckLine = (id: string, visibility: 'public' | 'private' = 'public'): DeckLine => ({
  id,
  gameId: 'digimon',
  name: `cached ${id.slice(0, 8)}`,
  ownerDisplayName: 'tester',
  visibility,
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: visibility === 'public' ? '2026-03-02T10:00:00.000Z' : '2026-03-03T10:00:00.000Z',
  cards: env.catalogs.digimon!.slice(0, 3).map((card) => ({ cardId: card.id, quantity: 4 })),
});

/** A new key and its id. */
function newKey(name: string, options: { quota?: number; scopes?: string[] } = {}): { key: string; id: string } {
  const key = env.gateway.createKey({ name, quota: options.quota ?? 100_000, scopes: options.scopes ?? [] });
  const id = withDb(env.dbFile, (db) => new KeyStore(db).list().find((k) => k.name === name)!.id);
  return { key, id };
}

const viaCache = (path: string, headers: Record<string, string | string[]> = {}, method = 'GET') => rawRequest(`${cache.url}${path}`, { headers, method });
const direct = (path: string, headers: Record<string, string> = {}) => rawRequest(`${env.gateway.url}${path}`, { headers });
const requestsSeen = (status?: number) => gatewayRequests(env.gateway.url, status);

/** The body as the client reads it, whatever the Content-Encoding. */
function decoded(r: RawResponse): string {
  const encoding = r.headers['content-encoding'];
  return (encoding === 'br' ? brotliDecompressSync(r.body) : encoding === 'gzip' ? gunzipSync(r.body) : r.body).toString('utf8');
}

/** Walks every card of every game through the cache; one response per page. */
async function walkAll(key: string, requestIds: string, hitsPerPage = 10): Promise<RawResponse[]> {
  const pages: RawResponse[] = [];
  for (const game of Object.keys(GAMES)) {
    let cursor: string | null = null;
    do {
      const query: string = `hitsPerPage=${hitsPerPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const r = await viaCache(`/v1/games/${game}/cards?${query}`, { 'X-API-Key': key, 'Accept-Encoding': 'gzip, deflate, br', 'X-Request-Id': `${requestIds}-${pages.length}` });
      expect(r.status, `${game} ${query}`).toBe(200);
      pages.push(r);
      cursor = JSON.parse(decoded(r)).data.cursor;
    } while (cursor);
  }
  return pages;
}

beforeAll(async () => {
  env = await startDeckEnv(GAMES);
  await importLines(env.dbFile, [...publicDecks.map((id) => deckLine(id)), deckLine(privateDeck, 'private')]);
  privateLink = withDb(env.dbFile, (db) => new DeckStore(db).createPrivateLink(privateDeck)!);
  cache = await startVarnish({ backendPort: Number(new URL(env.gateway.url).port) });
});

afterAll(async () => {
  await cache?.stop();
  await env?.close();
});

describe('the shipped VCL in front of a gateway', () => {
  it('caches a walk per key: the same key walks again without reaching the gateway, another key does not share it', async () => {
    const walker = newKey('walker');
    const before = await requestsSeen();
    const first = await walkAll(walker.key, 'first');
    const afterFirst = await requestsSeen();
    const second = await walkAll(walker.key, 'second');
    const afterSecond = await requestsSeen();

    expect(first.length).toBe(25 + 4 + 4 + 4);
    expect(afterFirst - before).toBe(first.length);
    expect(first.every((r) => r.headers['x-cache'] === 'MISS')).toBe(true);
    expect(afterSecond - afterFirst).toBe(0);
    expect(second.every((r) => r.headers['x-cache'] === 'HIT')).toBe(true);
    expect(second.map(decoded)).toEqual(first.map(decoded));
    // brotli reaches a client that accepts it, through Varnish's default http_gzip_support.
    expect(new Set([...first, ...second].map((r) => r.headers['content-encoding']))).toEqual(new Set(['br']));

    const other = newKey('other walker');
    const third = await walkAll(other.key, 'third');
    expect((await requestsSeen()) - afterSecond).toBe(third.length);
    expect(third.every((r) => r.headers['x-cache'] === 'MISS')).toBe(true);

    console.log(
      `two-pass walk through Varnish (${first.length} pages of 10 cards, 4 games): pass 1 ${first.length} misses, ` +
        `${afterFirst - before} gateway requests; pass 2 ${second.filter((r) => r.headers['x-cache'] === 'HIT').length}/${second.length} hits, ` +
        `${afterSecond - afterFirst} gateway requests; another key's pass: ${third.length} misses`,
    );
  });

  it('hits carry no RateLimit fields (the gateway never counted them) and the request id of the request they answer', async () => {
    const { key } = newKey('rate limit headers', { quota: 3 });
    const path = '/v1/games/gundam/cards?hitsPerPage=4';
    const miss = await viaCache(path, { 'X-API-Key': key, 'Accept-Encoding': 'br', 'X-Request-Id': 'filled-the-cache' });
    expect(miss.headers['x-cache']).toBe('MISS');
    expect(miss.headers['ratelimit']).toBe(`"default";r=2;t=${miss.headers['ratelimit-reset']}`);
    expect(miss.headers['ratelimit-policy']).toBe('"default";q=3;w=900');
    expect(miss.headers['x-request-id']).toBe('filled-the-cache');

    // The key uses up its quota elsewhere: the gateway answers it 429 ...
    await viaCache('/v1/games', { 'X-API-Key': key });
    await viaCache('/v1/games/gundam/cards?hitsPerPage=5', { 'X-API-Key': key });
    const limited = await viaCache('/v1/games/gundam/cards?hitsPerPage=6', { 'X-API-Key': key });
    expect(limited.status).toBe(429);
    expect(limited.headers['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);

    // ... and a hit neither repeats the r=2 of the request that filled the cache nor its id.
    const hit = await viaCache(path, { 'X-API-Key': key, 'Accept-Encoding': 'br', 'X-Request-Id': 'a-later-client' });
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.status).toBe(200);
    for (const field of RATE_LIMIT_FIELDS) expect(hit.headers[field], field).toBeUndefined();
    expect(hit.headers['x-request-id']).toBe('a-later-client');
    // Without a usable id of its own, a client gets one made by the cache, new on every request.
    const ids = new Set<string>();
    for (const given of [undefined, 'not a valid id!', undefined]) {
      const r = await viaCache(path, { 'X-API-Key': key, 'Accept-Encoding': 'br', ...(given ? { 'X-Request-Id': given } : {}) });
      expect(r.headers['x-cache']).toBe('HIT');
      ids.add(String(r.headers['x-request-id']));
    }
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^varnish-\d+-\d+$/);
  });

  it('errors on keyed endpoints carry the Vary of their successes', async () => {
    const plain = newKey('no scopes');
    const spent = newKey('spent', { quota: 1 });
    await direct('/v1/games', { 'X-API-Key': spent.key });
    const cases: Array<[string, Record<string, string>, number]> = [
      ['/v1/games', {}, 401],
      ['/v1/games/digimon/cards', { 'X-API-Key': `sd_live_${'0'.repeat(32)}` }, 401],
      ['/v1/games/digimon/cards', { 'X-API-Key': spent.key }, 429],
      ['/v1/decks/public?gameId=digimon', { 'X-API-Key': plain.key }, 403],
      ['/v1/decks/changes?gameId=digimon', { 'X-API-Key': plain.key }, 403],
      ['/v1/games/digimon/cards?hitsPerPage=0', { 'X-API-Key': plain.key }, 400],
      ['/v1/games/nope/cards/BT1-001', { 'X-API-Key': plain.key }, 404],
      [`/v1/decks/${newId()}/text?format=snapdeck`, { 'X-API-Key': plain.key }, 404],
    ];
    for (const [path, headers, status] of cases) {
      const r = await direct(path, headers);
      expect(r.status, path).toBe(status);
      expect(r.headers['vary'], path).toBe(KEYED_VARY);
      expect(r.headers['cache-control'], path).toBe('no-store');
    }
    const success = await direct('/v1/games/digimon/cards', { 'X-API-Key': plain.key });
    expect(success.headers['vary']).toBe(KEYED_VARY);
    // GET /v1/decks/{id} needs no key: its errors vary as its successes, by encoding only.
    expect((await direct(`/v1/decks/${newId()}`)).headers['vary']).toBe('Accept-Encoding');
    expect((await direct(`/v1/decks/${publicDecks[0]}`)).headers['vary']).toBe('Accept-Encoding');
  });

  it("a 401 or another key's 429 on a URL leaves nothing in the way of the keys that may read it", async () => {
    const path = '/v1/games/chrono-core/cards?hitsPerPage=9';
    const spent = newKey('spent on this url', { quota: 1 });
    await viaCache('/v1/games', { 'X-API-Key': spent.key });
    const reader = newKey('reader after errors');
    const read = async () => (await viaCache(path, { 'X-API-Key': reader.key, 'Accept-Encoding': 'gzip' })).headers['x-cache'];
    expect([await read(), await read()]).toEqual(['MISS', 'HIT']);
    for (let i = 0; i < 2; i++) {
      expect((await viaCache(path, { 'Accept-Encoding': 'gzip' })).status).toBe(401);
      const limited = await viaCache(path, { 'X-API-Key': spent.key, 'Accept-Encoding': 'gzip' });
      expect([limited.status, limited.headers['x-cache']]).toEqual([429, 'MISS']);
      expect(await read()).toBe('HIT');
    }
    // A key that meets a fresh URL after an error there is cached at once too.
    const fresh = '/v1/games/chrono-core/cards?hitsPerPage=19';
    expect((await viaCache(fresh, { 'X-API-Key': spent.key, 'Accept-Encoding': 'gzip' })).status).toBe(429);
    const first = await viaCache(fresh, { 'X-API-Key': reader.key, 'Accept-Encoding': 'gzip' });
    const second = await viaCache(fresh, { 'X-API-Key': reader.key, 'Accept-Encoding': 'gzip' });
    expect([first.headers['x-cache'], second.headers['x-cache']]).toEqual(['MISS', 'HIT']);
  });

  it('never stores a private, token, error or 429 response', async () => {
    const scoped = newKey('scoped', { scopes: ['decks:browse:public', 'decks:read:public'] });
    const spent = newKey('spent for storage', { quota: 1 });
    await viaCache('/v1/games', { 'X-API-Key': spent.key });
    const cases: Array<[string, string, Record<string, string>, number, string]> = [
      ['GET', '/v1/decks/public?gameId=digimon', { 'X-API-Key': scoped.key }, 200, 'private, no-cache'],
      ['GET', '/v1/decks/changes?gameId=digimon', { 'X-API-Key': scoped.key }, 200, 'private, no-cache'],
      ['POST', '/v1/decks/details', { 'X-API-Key': scoped.key }, 400, 'no-store'],
      ['GET', `/v1/decks/${privateDeck}?token=${privateLink}`, {}, 200, 'private, no-store'],
      ['GET', `/v1/decks/${privateDeck}/text?format=snapdeck&token=${privateLink}`, { 'X-API-Key': scoped.key }, 200, 'private, no-store'],
      ['GET', `/v1/decks/${privateDeck}`, {}, 404, 'no-store'],
      ['GET', `/v1/decks/${publicDecks[0]}?format=yaml`, {}, 400, 'no-store'],
      ['GET', '/v1/games', { 'X-API-Key': `sd_live_${'1'.repeat(32)}` }, 401, 'no-store'],
      ['GET', '/v1/games/gundam/cards?hitsPerPage=11', { 'X-API-Key': spent.key }, 429, 'no-store'],
      ['GET', '/v1/games/gundam/cards/NOPE-000', { 'X-API-Key': scoped.key }, 404, 'no-store'],
    ];
    const round = async (seen: number[]) => {
      for (const [i, [method, path, headers, status, cacheControl]] of cases.entries()) {
        const before = await requestsSeen();
        const r = await viaCache(path, headers, method);
        expect(r.status, `${method} ${path}`).toBe(status);
        expect(r.headers['cache-control'], path).toBe(cacheControl);
        expect(r.headers['x-cache'], path).toBe('MISS');
        seen[i] = (seen[i] ?? 0) + (await requestsSeen()) - before;
      }
    };
    const seen: number[] = [];
    await round(seen);
    await round(seen);
    // Once more after the 1 s hit-for-miss marker has gone: still not a hit.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await round(seen);
    expect(seen, 'every request reached the gateway').toEqual(cases.map(() => 3));
  });

  it('answers If-None-Match with 304 from the cache, a changed tag with the body', async () => {
    const { key } = newKey('conditional');
    const path = '/v1/games/grand-archive/cards?hitsPerPage=20';
    const etag = String((await direct(path, { 'X-API-Key': key, 'Accept-Encoding': 'br' })).headers['etag']);
    const before = await requestsSeen();
    // A miss: Varnish fetches the page for its cache and answers the client's condition itself.
    const miss = await viaCache(path, { 'X-API-Key': key, 'Accept-Encoding': 'br', 'If-None-Match': etag });
    expect([miss.status, miss.headers['x-cache'], miss.body.length]).toEqual([304, 'MISS', 0]);
    const hit = await viaCache(path, { 'X-API-Key': key, 'Accept-Encoding': 'br', 'If-None-Match': etag });
    expect([hit.status, hit.headers['x-cache'], hit.body.length, hit.headers['etag']]).toEqual([304, 'HIT', 0, etag]);
    const changed = await viaCache(path, { 'X-API-Key': key, 'Accept-Encoding': 'br', 'If-None-Match': '"an-older-version-br"' });
    expect([changed.status, changed.headers['x-cache']]).toEqual([200, 'HIT']);
    expect(JSON.parse(decoded(changed)).data.hits).toHaveLength(20);
    expect((await requestsSeen()) - before).toBe(1);
  });

  it('stores each response once per encoding (br, gzip, none) and every encoding decodes to the same JSON or text', async () => {
    const { key } = newKey('encodings');
    const first = JSON.parse(decoded(await direct('/v1/games/digimon/cards?hitsPerPage=30', { 'X-API-Key': key }))).data;
    const paths: Array<[string, Record<string, string>, boolean]> = [
      ['/v1/games/digimon/cards?hitsPerPage=30', { 'X-API-Key': key }, true],
      [`/v1/games/digimon/cards?hitsPerPage=30&cursor=${encodeURIComponent(first.cursor)}`, { 'X-API-Key': key }, true],
      ['/v1/games/digimon/cards?hitsPerPage=13', { 'X-API-Key': key }, true],
      [`/v1/games/digimon/cards/${env.catalogs.digimon![5]!.id}`, { 'X-API-Key': key }, true],
      ['/v1/games', { 'X-API-Key': key }, false],
      [`/v1/decks/${publicDecks[0]}`, {}, false],
      [`/v1/decks/${publicDecks[0]}?format=text`, {}, false],
      [`/v1/decks/${publicDecks[0]}/text?format=limitless`, { 'X-API-Key': key }, false],
    ];
    // Accept-Encoding as clients send it → what the cache stores it under.
    const variants: Array<[string | undefined, 'br' | 'gzip' | 'identity']> = [
      ['gzip, deflate, br', 'br'],
      ['br', 'br'],
      ['*', 'br'],
      ['br;q=0.5, gzip;q=1', 'br'],
      ['gzip', 'gzip'],
      ['deflate, gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      [undefined, 'identity'],
      ['identity', 'identity'],
      ['deflate', 'identity'],
      ['br;q=0, gzip;q=0.0', 'identity'],
      ['br;q=0, *', 'gzip'],
      ['gzip;q=0, *', 'br'],
      ['br;q=0, x-gzip;q=0, *', 'identity'],
    ];
    for (const [path, headers, compressed] of paths) {
      const reference = decoded(await direct(path, headers));
      const before = await requestsSeen();
      const fetched = new Set<string>();
      for (const [acceptEncoding, stored] of variants) {
        const r = await viaCache(path, { ...headers, ...(acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding }) });
        expect(r.status, path).toBe(200);
        expect(decoded(r), `${path} with ${acceptEncoding}`).toBe(reference);
        expect(r.headers['x-cache'], `${path} with ${acceptEncoding}`).toBe(fetched.has(stored) ? 'HIT' : 'MISS');
        fetched.add(stored);
        if (compressed) expect(r.headers['content-encoding'], `${path} with ${acceptEncoding}`).toBe(stored === 'identity' ? undefined : stored);
      }
      expect((await requestsSeen()) - before, path).toBe(3);
    }
  });

  it('hides Surrogate-Key, which the gateway sends with the key id, deck:<id>, decks and game:<slug> tokens', async () => {
    const { key, id } = newKey('tokens');
    const expected: Array<[string, Record<string, string>, string]> = [
      ['/v1/games', { 'X-API-Key': key }, id],
      ['/v1/games/gundam/cards?hitsPerPage=2', { 'X-API-Key': key }, `${id} game:gundam`],
      [`/v1/games/gundam/cards/${env.catalogs.gundam![0]!.id}`, { 'X-API-Key': key }, `${id} game:gundam`],
      [`/v1/decks/${publicDecks[0]}`, {}, `decks deck:${publicDecks[0]}`],
      [`/v1/decks/${publicDecks[0]}/text?format=snapdeck`, { 'X-API-Key': key }, `${id} decks deck:${publicDecks[0]}`],
    ];
    for (const [path, headers, tokens] of expected) {
      expect((await direct(path, headers)).headers['surrogate-key'], path).toBe(tokens);
      const r = await viaCache(path, headers);
      expect(r.status, path).toBe(200);
      expect(r.headers['surrogate-key'], path).toBeUndefined();
    }
  });

  it('takes two X-API-Key headers as the gateway does (one invalid key), never as the first one', async () => {
    const a = newKey('first of two');
    const b = newKey('second of two');
    const path = '/v1/games/gundam/cards?hitsPerPage=7';
    expect((await viaCache(path, { 'X-API-Key': a.key, 'Accept-Encoding': 'br' })).status).toBe(200);
    expect((await viaCache(path, { 'X-API-Key': a.key, 'Accept-Encoding': 'br' })).headers['x-cache']).toBe('HIT');
    const both = await viaCache(path, { 'X-API-Key': [a.key, b.key], 'Accept-Encoding': 'br' });
    expect([both.status, both.headers['x-cache']]).toEqual([401, 'MISS']);
  });

  it('answers 503 in the JSON error shape, never stored, when the gateway cannot be reached', async () => {
    const orphan = await startVarnish({ backendPort: await freePort() });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await rawRequest(`${orphan.url}/v1/games`, { headers: { 'X-API-Key': 'sd_live_0123', 'X-Request-Id': `down-${i}` } });
        expect([r.status, r.headers['content-type'], r.headers['cache-control'], r.headers['x-cache'], r.headers['x-request-id']]).toEqual([503, 'application/json', 'no-store', 'MISS', `down-${i}`]);
        expect(JSON.parse(r.body.toString())).toEqual({ error: 'Service unavailable' });
      }
    } finally {
      await orphan.stop();
    }
  });

  it('keeps /metrics to the operator', async () => {
    const r = await viaCache('/metrics');
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body.toString())).toEqual({ error: 'Not found' });
  });
});

describe("the gateway's headers behind Varnish's builtin VCL (no configuration shipped)", () => {
  it("a 401 or another key's 429 on a URL leaves no hit-for-miss marker for the other keys", async () => {
    const builtin = await startVarnish({ backendPort: Number(new URL(env.gateway.url).port), builtin: true });
    try {
      const path = '/v1/games/gundam/cards?hitsPerPage=8';
      const spent = newKey('spent behind builtin', { quota: 1 });
      await direct('/v1/games', { 'X-API-Key': spent.key });
      const reader = newKey('reader behind builtin');
      const read = async () => {
        const before = await requestsSeen();
        expect((await rawRequest(`${builtin.url}${path}`, { headers: { 'X-API-Key': reader.key } })).status).toBe(200);
        return (await requestsSeen()) - before;
      };
      expect([await read(), await read()]).toEqual([1, 0]);
      // Builtin VCL: an uncacheable answer leaves a hit-for-miss marker (120 s) that is found
      // before older objects of the URL whose Vary it matches. The gateway's Vary on errors
      // makes it match no key (the 401) or the one key (the 429), never the reader's.
      for (let i = 0; i < 2; i++) {
        expect((await rawRequest(`${builtin.url}${path}`)).status).toBe(401);
        expect((await rawRequest(`${builtin.url}${path}`, { headers: { 'X-API-Key': spent.key } })).status).toBe(429);
        expect(await read(), 'the reader was answered from the cache').toBe(0);
      }
    } finally {
      await builtin.stop();
    }
  });
});

describe('purges', () => {
  /** Requests `path` through the cache until it answers `status`; returns how long that took. */
  async function untilStatus(path: string, headers: Record<string, string>, status: number, ms: number): Promise<number> {
    const started = Date.now();
    await waitFor(async () => (await viaCache(path, headers)).status === status, ms, `${path} did not answer ${status} within ${ms} ms`);
    return Date.now() - started;
  }

  it('PURGE with Surrogate-Key is refused from outside the ACL and without well-formed tokens', async () => {
    const { key, id } = newKey('purge refusals');
    const path = '/v1/games';
    await viaCache(path, { 'X-API-Key': key });
    // 127.0.0.2 is this machine too, but not in the shipped ACL (127.0.0.1, ::1).
    const outsider = await rawRequest(`${cache.url}/`, { method: 'PURGE', headers: { 'Surrogate-Key': id }, localAddress: '127.0.0.2' });
    expect(outsider.status).toBe(403);
    for (const tokens of ['', 'key_1 "quoted"', 'a.b', 'deck:(x|y)']) {
      const bad = await rawRequest(`${cache.url}/`, { method: 'PURGE', headers: { 'Surrogate-Key': tokens } });
      expect(bad.status, tokens).toBe(400);
      expect(JSON.parse(bad.body.toString()).error).toMatch(/Surrogate-Key/);
    }
    expect((await viaCache(path, { 'X-API-Key': key })).headers['x-cache']).toBe('HIT');
    // A token that merely contains the key id (a longer token) purges nothing of it.
    expect((await rawRequest(`${cache.url}/`, { method: 'PURGE', headers: { 'Surrogate-Key': `${id}0 x${id}` } })).status).toBe(200);
    expect((await viaCache(path, { 'X-API-Key': key })).headers['x-cache']).toBe('HIT');
    const purged = await rawRequest(`${cache.url}/`, { method: 'PURGE', headers: { 'Surrogate-Key': `game:nothing ${id}` } });
    expect([purged.status, JSON.parse(purged.body.toString())]).toEqual([200, { purged: `game:nothing ${id}` }]);
    expect((await viaCache(path, { 'X-API-Key': key })).headers['x-cache']).toBe('MISS');
  });

  it('keys revoke --purge: the revoked key gets 401 through the cache within 2 s; other keys keep their entries', async () => {
    const revoked = newKey('to revoke');
    const kept = newKey('kept');
    const control = newKey('revoked without purge');
    const cursorPage = async (key: string) => {
      const page = JSON.parse(decoded(await viaCache('/v1/games/digimon/cards?hitsPerPage=10', { 'X-API-Key': key, 'Accept-Encoding': 'br' })));
      return `/v1/games/digimon/cards?hitsPerPage=10&cursor=${encodeURIComponent(page.data.cursor)}`;
    };
    const paths = { revoked: ['/v1/games', await cursorPage(revoked.key)], kept: ['/v1/games', await cursorPage(kept.key)], control: ['/v1/games', await cursorPage(control.key)] };
    for (const [who, key] of [['revoked', revoked.key], ['kept', kept.key], ['control', control.key]] as const) {
      for (const path of paths[who]) {
        await viaCache(path, { 'X-API-Key': key, 'Accept-Encoding': 'br' });
        expect((await viaCache(path, { 'X-API-Key': key, 'Accept-Encoding': 'br' })).headers['x-cache'], `${who} ${path}`).toBe('HIT');
      }
    }

    // Without a purge the cache keeps answering a revoked key (a cursor page for a year): the
    // reason for --purge.
    expect((await runCli(['keys', 'revoke', control.id, '--db', env.dbFile], { env: { SNAPDECK_PURGE_URL: '' } })).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const path of paths.control) expect((await viaCache(path, { 'X-API-Key': control.key, 'Accept-Encoding': 'br' })).status, path).toBe(200);

    const result = await runCli(['keys', 'revoke', revoked.id, '--db', env.dbFile, '--purge', `${cache.url}/`]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`revoked ${revoked.id}`);
    expect(result.stderr).toContain(`purged ${revoked.id} from ${cache.url}/`);
    for (const path of paths.revoked) {
      const waited = await untilStatus(path, { 'X-API-Key': revoked.key, 'Accept-Encoding': 'br' }, 401, 2000);
      expect(waited, path).toBeLessThan(2000);
    }
    for (const path of paths.kept) expect((await viaCache(path, { 'X-API-Key': kept.key, 'Accept-Encoding': 'br' })).headers['x-cache'], path).toBe('HIT');
  });

  it('decks import --purge (here from SNAPDECK_PURGE_URL): a deck made private or deleted is 404 through the cache within 2 s', async () => {
    const [, madePrivate, deleted] = publicDecks as [string, string, string];
    for (const id of [madePrivate, deleted]) {
      for (const path of [`/v1/decks/${id}`, `/v1/decks/${id}?format=text`]) {
        await viaCache(path, { 'Accept-Encoding': 'gzip' });
        expect((await viaCache(path, { 'Accept-Encoding': 'gzip' })).headers['x-cache'], path).toBe('HIT');
      }
    }
    const file = join(env.dir, 'purge-import.jsonl');
    await writeFile(file, `${JSON.stringify(deckLine(madePrivate, 'private'))}\n${JSON.stringify({ id: deleted, deleted: true })}\n`);
    const result = await runCli(['decks', 'import', file, '--db', env.dbFile], { env: { SNAPDECK_PURGE_URL: `${cache.url}/` } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`purged 2 surrogate keys from ${cache.url}/ (1 request each)`);
    for (const id of [madePrivate, deleted]) {
      for (const path of [`/v1/decks/${id}`, `/v1/decks/${id}?format=text`]) {
        expect(await untilStatus(path, { 'Accept-Encoding': 'gzip' }, 404, 2000), path).toBeLessThan(2000);
      }
    }
    // The deck nobody changed is still a hit.
    await viaCache(`/v1/decks/${publicDecks[0]}`, { 'Accept-Encoding': 'gzip' });
    expect((await viaCache(`/v1/decks/${publicDecks[0]}`, { 'Accept-Encoding': 'gzip' })).headers['x-cache']).toBe('HIT');
  });

  it('a purge that fails exits 1 with the reason, after the change is committed', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/`;
    const victim = newKey('revoked, purge failing');
    const revoke = await runCli(['keys', 'revoke', victim.id, '--db', env.dbFile, '--purge', closed]);
    expect(revoke.code).toBe(1);
    expect(revoke.stderr).toContain(`${victim.id} is revoked, but purging the cache failed: ${closed}: ECONNREFUSED`);
    expect(revoke.stderr).toContain(`curl -X PURGE -H 'Surrogate-Key: ${victim.id}' ${closed}`);
    expect((await direct('/v1/games', { 'X-API-Key': victim.key })).status).toBe(401);

    const id = newId();
    const file = join(env.dir, 'purge-fails.jsonl');
    await writeFile(file, `${JSON.stringify(deckLine(id))}\n`);
    const imported = await runCli(['decks', 'import', file, '--db', env.dbFile, '--purge', closed]);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toContain('1 decks upserted');
    expect(imported.stderr).toContain(`${file} was imported, but purging the cache failed: ${closed}: ECONNREFUSED`);
    expect((await direct(`/v1/decks/${id}`)).status).toBe(200);

    // A malformed URL is refused before anything changes.
    const other = newId();
    await writeFile(file, `${JSON.stringify(deckLine(other))}\n`);
    const malformed = await runCli(['decks', 'import', file, '--db', env.dbFile], { env: { SNAPDECK_PURGE_URL: 'varnish:6081' } });
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain('SNAPDECK_PURGE_URL');
    expect((await direct(`/v1/decks/${other}`)).status).toBe(404);
  });
});

describe('--trust-proxy behind the cache', () => {
  it('a forged X-Forwarded-For does not escape the per-address limit (--address-quota 3)', async () => {
    const limited = await startExtraGateway(env, { addressQuota: 3, trustProxy: 1 });
    const front = await startVarnish({ backendPort: Number(new URL(limited.url).port) });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        // A new URL each time (a miss), with a new forged client address each time.
        const r = await rawRequest(`${front.url}/v1/decks/${publicDecks[0]}?n=${i}`, { headers: { 'X-Forwarded-For': `203.0.113.${i + 1}` } });
        statuses.push(r.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    } finally {
      await front.stop();
      await limited.close();
    }
  });
});
