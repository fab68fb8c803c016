import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_MODELS, ERRORS, GAME_SLUGS, cardsPageResponse, gamesResponse } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const COUNTS = { digimon: 230, gundam: 120, 'grand-archive': 90, 'chrono-core': 41 } as const;

let gateway: TestGateway;
let cleanup: () => Promise<void>;
let key: string;
let catalogs: Awaited<ReturnType<typeof writeGeneratedCatalog>>;
let dir: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  catalogs = await writeGeneratedCatalog(join(dir, 'catalog'), COUNTS);
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1, 100, 1000] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  key = gateway.createKey();
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

const auth = () => ({ 'X-API-Key': key });

/** Follows cursors to the end, returning every hit and the number of requests. */
async function walk(game: string, hitsPerPage: number | undefined, headers: Record<string, string> = auth()) {
  const hits: Array<{ id: string }> = [];
  let cursor: string | null | undefined;
  let pages = 0;
  let totalHits = -1;
  do {
    const query = new URLSearchParams();
    if (hitsPerPage !== undefined) query.set('hitsPerPage', String(hitsPerPage));
    if (cursor) query.set('cursor', cursor);
    const response = await getJson(`${gateway.base}/games/${game}/cards?${query}`, headers);
    expect(response.status, response.text).toBe(200);
    cardsPageResponse(CARD_MODELS[game as keyof typeof CARD_MODELS].hit).parse(response.body);
    hits.push(...response.body.data.hits);
    totalHits = response.body.data.totalHits;
    cursor = response.body.data.cursor;
    pages += 1;
    if (pages > 10_000) throw new Error('walk does not end');
  } while (cursor !== null);
  return { hits, pages, totalHits };
}

describe('GET /v1/games', () => {
  it('lists the four public games', async () => {
    const response = await getJson(`${gateway.base}/games`, auth());
    expect(response.status).toBe(200);
    gamesResponse.parse(response.body);
    expect(response.body.data.map((g: { id: string }) => g.id)).toEqual([...GAME_SLUGS]);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
  });

  it('needs a key: 401 API key required, 401 Invalid API key', async () => {
    const missing = await getJson(`${gateway.base}/games`);
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: ERRORS.apiKeyRequired });
    expect(missing.headers.get('x-content-type-options')).toBe('nosniff');
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');
    for (const bad of ['nope', 'sd_live_00000000000000000000000000000000', `${key}0`]) {
      const invalid = await getJson(`${gateway.base}/games`, { 'X-API-Key': bad });
      expect(invalid.status).toBe(401);
      expect(invalid.body).toEqual({ error: ERRORS.invalidApiKey });
    }
  });

  it('a revoked key gets 401 within moments, without a restart', async () => {
    const revocable = gateway.createKey();
    expect((await getJson(`${gateway.base}/games`, { 'X-API-Key': revocable })).status).toBe(200);
    const { KeyStore, openDatabase } = await import('@snapdeck/store');
    const db = openDatabase(join(dir, 'snapdeck.db'));
    new KeyStore(db).revoke(revocable);
    db.close();
    await new Promise((r) => setTimeout(r, 150)); // the key cache looks for changes every 100 ms
    const after = await getJson(`${gateway.base}/games`, { 'X-API-Key': revocable });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: ERRORS.invalidApiKey });
  });
});

describe('GET /v1/games/{slug}/cards: walks', () => {
  it.each([
    ['chrono-core', undefined],
    ['chrono-core', 1],
    ['digimon', 7],
    ['digimon', 100],
    ['gundam', 1000],
    ['grand-archive', 37],
    ['digimon', 230],
    ['digimon', 229],
  ])('%s at hitsPerPage=%s returns every card exactly once', async (game, hitsPerPage) => {
    const { hits, pages, totalHits } = await walk(game, hitsPerPage);
    const expected = catalogs[game]!;
    expect(totalHits).toBe(expected.length);
    expect(hits).toHaveLength(expected.length);
    expect(new Set(hits.map((h) => h.id))).toEqual(new Set(expected.map((c) => c.id)));
    expect(pages).toBe(Math.max(1, Math.ceil(expected.length / (hitsPerPage ?? 1))));
  });

  it('hits are the documented subset of each card', async () => {
    const { hits } = await walk('digimon', 1000);
    const byId = new Map(catalogs.digimon!.map((c) => [c.id, c]));
    for (const hit of hits) {
      const card = byId.get(hit.id)!;
      expect(hit).toEqual(CARD_MODELS.digimon.toHit(card as never));
    }
  });

  it('a single page walk has cursor null on its first page', async () => {
    const response = await getJson(`${gateway.base}/games/chrono-core/cards?hitsPerPage=1000`, auth());
    expect(response.body.data.cursor).toBeNull();
    expect(response.body.data.hits).toHaveLength(COUNTS['chrono-core']);
  });

  it('pre-rendered and assembled pages agree byte for byte in content', async () => {
    const a = await walk('gundam', 100);
    const b = await walk('gundam', 99);
    expect(a.hits.map((h) => h.id)).toEqual(b.hits.map((h) => h.id));
  });
});

describe('GET /v1/games/{slug}/cards: errors', () => {
  it.each(['0', '1001', 'abc', '1.5', '-1', '', '1e2', ' 5', '+5', '99999999999999999999'])('hitsPerPage=%j is a 400', async (value) => {
    const response = await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=${encodeURIComponent(value)}`, auth());
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: ERRORS.hitsPerPage });
  });

  it('unknown and internal games are 404 Game not found', async () => {
    for (const slug of ['pokemon', 'chrono-core-playtest', 'DIGIMON']) {
      const response = await getJson(`${gateway.base}/games/${slug}/cards`, auth());
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: ERRORS.gameNotFound });
    }
  });

  it('follows the precedence order: 401 before 404, 404 game before 400 parameters', async () => {
    expect((await getJson(`${gateway.base}/games/pokemon/cards?hitsPerPage=0`)).body).toEqual({ error: ERRORS.apiKeyRequired });
    expect((await getJson(`${gateway.base}/games/pokemon/cards?hitsPerPage=0`, auth())).body).toEqual({ error: ERRORS.gameNotFound });
    expect((await getJson(`${gateway.base}/games/pokemon/cards/bad.id`, auth())).body).toEqual({ error: ERRORS.gameNotFound });
  });

  it('rejects malformed, tampered and foreign cursors with 400 Invalid cursor', async () => {
    const first = await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=10`, auth());
    const cursor: string = first.body.data.cursor;
    const other = await getJson(`${gateway.base}/games/gundam/cards?hitsPerPage=10`, auth());
    const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);
    const cases = [
      ['garbage', 'not-a-cursor'],
      ['tampered payload', flip(cursor, 3)],
      ['tampered signature', flip(cursor, cursor.length - 2)],
      ['truncated', cursor.slice(0, -4)],
      ['other game', other.body.data.cursor],
    ];
    for (const [, bad] of cases) {
      const response = await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=10&cursor=${encodeURIComponent(bad!)}`, auth());
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: ERRORS.invalidCursor });
    }
    const otherPageSize = await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=11&cursor=${encodeURIComponent(cursor)}`, auth());
    expect(otherPageSize.status).toBe(400);
    expect(otherPageSize.body).toEqual({ error: ERRORS.invalidCursor });
    // A forged cursor for a page past the end, signed with nothing we know, is also invalid.
    const forged = Buffer.from(`c1|digimon|10|${'x'.repeat(10)}|999`).toString('base64url') + '.' + 'A'.repeat(22);
    expect((await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=10&cursor=${forged}`, auth())).status).toBe(400);
    // Nor may a cursor's claimed game or version reach storage paths.
    for (const claim of ['c1|../../etc|10|2026-11-22T11-05-12-345Z-a1b2c3|1', 'c1|digimon|10|../../../etc/passwd|1']) {
      const sneaky = Buffer.from(claim).toString('base64url') + '.' + 'A'.repeat(22);
      const response = await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=10&cursor=${sneaky}`, auth());
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: ERRORS.invalidCursor });
    }
  });
});

describe('GET /v1/games/{slug}/cards/{cardId}', () => {
  it('returns the full card, as built', async () => {
    for (const game of GAME_SLUGS) {
      const card = catalogs[game]![5]!;
      const response = await getJson(`${gateway.base}/games/${game}/cards/${card.id}`, auth());
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ data: card });
      CARD_MODELS[game].card.parse(response.body.data);
    }
  });

  it('404 Card not found for a well-formed id that does not exist', async () => {
    const response = await getJson(`${gateway.base}/games/digimon/cards/ZZ99-999`, auth());
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: ERRORS.cardNotFound });
  });

  it.each(['a.b', 'x'.repeat(101), 'BT1 010', 'é'])('400 Invalid card ID format for %j', async (id) => {
    const response = await getJson(`${gateway.base}/games/digimon/cards/${encodeURIComponent(id)}`, auth());
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: ERRORS.invalidCardId });
  });

  it('404 Game not found for an unknown slug', async () => {
    const response = await getJson(`${gateway.base}/games/nope/cards/BT1-001`, auth());
    expect(response.body).toEqual({ error: ERRORS.gameNotFound });
  });
});

describe('HTTP behaviour', () => {
  it('answers 304 to a matching If-None-Match, with the ETag', async () => {
    for (const path of ['/games', '/games/digimon/cards?hitsPerPage=100', `/games/gundam/cards/${catalogs.gundam![0]!.id}`, '/games/digimon/cards?hitsPerPage=33']) {
      const first = await fetch(`${gateway.base}${path}`, { headers: auth() });
      const etag = first.headers.get('etag')!;
      expect(etag).toBeTruthy();
      const second = await fetch(`${gateway.base}${path}`, { headers: { ...auth(), 'If-None-Match': etag } });
      expect(second.status).toBe(304);
      expect(second.headers.get('etag')).toBe(etag);
      expect(await second.text()).toBe('');
    }
  });

  it('serves brotli and gzip variants when accepted, identical once decoded', async () => {
    for (const path of ['/games/digimon/cards?hitsPerPage=100', '/games/digimon/cards?hitsPerPage=21', `/games/digimon/cards/${catalogs.digimon![3]!.id}`]) {
      const identity = await fetch(`${gateway.base}${path}`, { headers: { ...auth(), 'Accept-Encoding': 'identity' } });
      expect(identity.headers.get('content-encoding')).toBeNull();
      const plain = await identity.text();
      for (const [accept, encoding] of [['br, gzip', 'br'], ['gzip', 'gzip'], ['gzip, br;q=0', 'gzip']] as const) {
        const response = await fetch(`${gateway.base}${path}`, { headers: { ...auth(), 'Accept-Encoding': accept } });
        expect(response.headers.get('content-encoding')).toBe(encoding);
        expect(response.headers.get('vary')).toContain('Accept-Encoding');
        expect(await response.text()).toBe(plain); // fetch decodes
      }
    }
  });

  it('says how long each response may be cached, and what it varies on', async () => {
    const first = await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=100`, auth());
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    expect(first.headers.get('vary')).toBe('Accept-Encoding, X-API-Key');
    const next = await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=100&cursor=${encodeURIComponent(first.body.data.cursor)}`, auth());
    expect(next.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const error = await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=0`, auth());
    expect(error.headers.get('cache-control')).toBe('no-store');
    expect(error.headers.get('content-type')).toBe('application/json');
  });

  it('404 Not found for unknown routes and 405 for wrong methods, as JSON', async () => {
    const unknown = await getJson(`${gateway.base}/nothing-here`, auth());
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Not found' });
    expect(unknown.headers.get('x-content-type-options')).toBe('nosniff');
    const wrong = await fetch(`${gateway.base}/games`, { method: 'POST', headers: auth() });
    expect(wrong.status).toBe(405);
    expect(await wrong.json()).toEqual({ error: 'Method not allowed' });
    expect(wrong.headers.get('allow')).toContain('GET');
    expect(wrong.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers CORS preflights allowing X-API-Key', async () => {
    const response = await fetch(`${gateway.base}/games`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://example.com', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-api-key' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-api-key');
  });
});
