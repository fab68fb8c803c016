/**
 * GET /v1/decks/public over HTTP (interface.md §4.4, decisions.md "Decks", "Errors and
 * precedence"): a real gateway, a real SQLite file, decks imported with importDecks on another
 * connection while the gateway serves. Every response goes through DeckClient (helpers/decks.ts),
 * which checks the common headers and validates bodies against the zod schemas and /v1/openapi.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, type GameSlug } from '@snapdeck/contract';
import { prng } from '../scripts/lib/deck-generator.ts';
import { BOTH_SCOPES, idGenerator, importLines, iso, startDeckEnv, walkListing, withDb, type DeckLine, type DeckTestEnv } from './helpers/decks.ts';

type Sort = 'updatedAt' | 'copyCount' | 'viewCount' | 'likeCount' | 'createdAt';
const SORTS: Sort[] = ['updatedAt', 'copyCount', 'viewCount', 'likeCount', 'createdAt'];

let env: DeckTestEnv;
const model = new Map<string, DeckLine>();
const newId = idGenerator(4242);
const random = prng(99);
const BASE = Date.UTC(2026, 0, 10, 8);
const HOUR = 3_600_000;
const MINUTE = 60_000;

/**
 * Few distinct values for every sort field, so that most decks share their sort value with many
 * others and the order rests on the id tie-break.
 */
function makeDeck(gameId: GameSlug, overrides: Partial<DeckLine> = {}): DeckLine {
  const created = BASE + Math.floor(random() * 6) * HOUR + (random() < 0.3 ? 123 : 0);
  const updated = created + Math.floor(random() * 4) * MINUTE;
  const deck: DeckLine = {
    id: newId(),
    gameId,
    name: `Deck ${model.size}`,
    ownerDisplayName: 'tester',
    visibility: random() < 0.1 ? 'private' : 'public',
    createdAt: iso(created),
    updatedAt: iso(updated),
    cards: [{ cardId: 'X1-001', quantity: 1 }],
  };
  // Counters are sometimes left out: they default to 0.
  if (random() < 0.8) deck.copyCount = Math.floor(random() * 3);
  if (random() < 0.8) deck.viewCount = [0, 7, 1000][Math.floor(random() * 3)]!;
  if (random() < 0.8) deck.likeCount = Math.floor(random() * 2);
  return { ...deck, ...overrides };
}

async function put(...decks: DeckLine[]): Promise<void> {
  for (const deck of decks) model.set(deck.id, deck);
  await importLines(env.dbFile, decks);
}

async function remove(id: string): Promise<void> {
  model.delete(id);
  await importLines(env.dbFile, [{ id, deleted: true }]);
}

function sortValue(deck: DeckLine, sort: Sort): number {
  if (sort === 'updatedAt') return Date.parse(deck.updatedAt);
  if (sort === 'createdAt') return Date.parse(deck.createdAt);
  return deck[sort] ?? 0;
}

const cmp = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0);

/** decisions.md: descending by the sort field, ties by id descending; with updatedSince ascending. */
function expected(game: GameSlug, sort: Sort = 'updatedAt', since?: number): string[] {
  const decks = [...model.values()].filter((d) => d.gameId === game && d.visibility === 'public');
  if (since !== undefined) {
    return decks
      .filter((d) => Date.parse(d.updatedAt) >= since)
      .sort((a, b) => cmp(Date.parse(a.updatedAt), Date.parse(b.updatedAt)) || cmp(a.id, b.id))
      .map((d) => d.id);
  }
  return decks.sort((a, b) => cmp(sortValue(b, sort), sortValue(a, sort)) || cmp(b.id, a.id)).map((d) => d.id);
}

const auth = () => ({ 'X-API-Key': env.key });
const list = (query: string, headers: Record<string, string> = auth()) => env.client.get(`/decks/public?${query}`, headers);

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 20, gundam: 20, 'grand-archive': 20, 'chrono-core': 20 });
  const decks: DeckLine[] = [];
  for (let i = 0; i < 200; i++) decks.push(makeDeck('digimon'));
  // Timestamps given with an offset and sub-millisecond digits are served in UTC with milliseconds.
  decks.push(makeDeck('digimon', { visibility: 'public', createdAt: '2026-01-10T09:30:00.5+01:00', updatedAt: '2026-01-10T09:45:00.1239+01:00' }));
  for (let i = 0; i < 40; i++) decks.push(makeDeck('chrono-core'));
  for (let i = 0; i < 7; i++) decks.push(makeDeck('grand-archive'));
  await put(...decks);
});

afterAll(async () => {
  if (env) expect(env.client.validated).toBeGreaterThan(50);
  await env?.close();
});

describe('GET /v1/decks/public: pages', () => {
  it('summaries carry exactly id, gameId, createdAt and updatedAt (milliseconds, UTC)', async () => {
    const r = await list('gameId=digimon&limit=50');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body.data.decks).toHaveLength(50);
    for (const summary of r.body.data.decks) {
      expect(Object.keys(summary).sort()).toEqual(['createdAt', 'gameId', 'id', 'updatedAt']);
      const deck = model.get(summary.id)!;
      expect(summary).toEqual({ id: deck.id, gameId: 'digimon', createdAt: iso(Date.parse(deck.createdAt)), updatedAt: iso(Date.parse(deck.updatedAt)) });
    }
    const offset = [...model.values()].find((d) => d.createdAt.endsWith('+01:00'))!;
    const all = await walkListing(env.client, env.key, { gameId: 'digimon', limit: '50' });
    expect(all.decks.find((d) => d.id === offset.id)).toEqual({ id: offset.id, gameId: 'digimon', createdAt: '2026-01-10T08:30:00.500Z', updatedAt: '2026-01-10T08:45:00.123Z' });
  });

  it('the data really has ties: many decks share each sort value', () => {
    for (const sort of SORTS) {
      const values = expected('digimon', sort).map((id) => sortValue(model.get(id)!, sort));
      expect(new Set(values).size, sort).toBeLessThan(values.length / 3);
    }
  });

  it.each(SORTS.flatMap((sort) => [[sort, 50], [sort, 7]] as const))('sort=%s, limit=%i: every public deck exactly once, descending, ties by id descending', async (sort, limit) => {
    const want = expected('digimon', sort);
    const walk = await walkListing(env.client, env.key, { gameId: 'digimon', sort, limit: String(limit) });
    expect(walk.decks.map((d) => d.id)).toEqual(want);
    expect(walk.pages).toHaveLength(Math.ceil(want.length / limit));
    walk.pages.forEach((page, i) => {
      expect(page.totalCount).toBe(want.length);
      expect(page.hasMore).toBe(i < walk.pages.length - 1);
      if (i < walk.pages.length - 1) expect(page.decks).toHaveLength(limit);
    });
  });

  it('a full enumeration equals the public decks of the game in the database', async () => {
    const walk = await walkListing(env.client, env.key, { gameId: 'digimon', limit: '50' });
    const stored = withDb(env.dbFile, (db) => db.prepare<[], { id: string }>("SELECT id FROM decks WHERE game_id = 'digimon' AND visibility = 'public'").all().map((row) => row.id));
    const ids = walk.decks.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...stored].sort());
    expect(walk.decks.every((d) => d.gameId === 'digimon')).toBe(true);
    // Private decks of the game exist and are not listed.
    const privateIds = [...model.values()].filter((d) => d.gameId === 'digimon' && d.visibility === 'private').map((d) => d.id);
    expect(privateIds.length).toBeGreaterThan(5);
    expect(ids.filter((id) => privateIds.includes(id))).toEqual([]);
  });

  it('sort=updatedAt is the default, and its cursors are the same listing', async () => {
    const implicit = await list('gameId=chrono-core&limit=5');
    const explicit = await list('gameId=chrono-core&limit=5&sort=updatedAt');
    expect(implicit.body.data.decks).toEqual(explicit.body.data.decks);
    const next = await list(`gameId=chrono-core&limit=5&sort=updatedAt&startAfter=${encodeURIComponent(implicit.body.data.nextCursor)}`);
    expect(next.status).toBe(200);
    expect(next.body.data.decks.map((d: { id: string }) => d.id)).toEqual(expected('chrono-core').slice(5, 10));
  });

  it.each([
    ['0', 1],
    ['-3', 1],
    ['1', 1],
    ['+5', 5],
    ['50', 50],
    ['51', 50],
    ['999', 50],
    ['99999999999999999999', 50],
    [undefined, 20],
  ])('limit=%s gives pages of %i', async (limit, size) => {
    const r = await list(`gameId=digimon${limit === undefined ? '' : `&limit=${encodeURIComponent(limit)}`}`);
    expect(r.status).toBe(200);
    expect(r.body.data.decks.map((d: { id: string }) => d.id)).toEqual(expected('digimon').slice(0, size));
    expect(r.body.data.hasMore).toBe(true);
  });

  it.each(['abc', '1.5', '', '1e2', ' 5', '0x10', '5abc'])('limit=%j is 400 limit must be an integer', async (limit) => {
    const r = await list(`gameId=digimon&limit=${encodeURIComponent(limit)}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(ERRORS.limitNotInteger);
  });

  it('a game without public decks: empty page, hasMore false, a nextCursor string, totalCount 0; the cursor later finds new decks', async () => {
    const r = await list('gameId=gundam');
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ decks: [], nextCursor: expect.any(String), hasMore: false, totalCount: 0 });
    expect(r.body.data.nextCursor.length).toBeGreaterThan(0);
    const again = await list(`gameId=gundam&startAfter=${encodeURIComponent(r.body.data.nextCursor)}`);
    expect(again.body.data).toEqual({ decks: [], nextCursor: expect.any(String), hasMore: false, totalCount: 0 });

    const arrived = makeDeck('gundam', { visibility: 'public' });
    await put(arrived);
    const later = await list(`gameId=gundam&startAfter=${encodeURIComponent(r.body.data.nextCursor)}`);
    expect(later.body.data.decks.map((d: { id: string }) => d.id)).toEqual([arrived.id]);
    expect(later.body.data.totalCount).toBe(1);
    expect(later.body.data.hasMore).toBe(false);
  });

  it('the last page still carries a nextCursor pointing just past its last deck', async () => {
    const walk = await walkListing(env.client, env.key, { gameId: 'grand-archive', limit: '3' });
    expect(walk.decks.map((d) => d.id)).toEqual(expected('grand-archive'));
    const last = walk.decks.at(-1)!;
    const after = await list(`gameId=grand-archive&limit=3&startAfter=${encodeURIComponent(walk.lastCursor)}`);
    expect(after.body.data).toMatchObject({ decks: [], hasMore: false, totalCount: expected('grand-archive').length });
    expect(typeof after.body.data.nextCursor).toBe('string');

    // A deck that now sorts after that point is found from the old cursor; one that sorts before it is not.
    const older = makeDeck('grand-archive', { visibility: 'public', createdAt: iso(BASE - 10 * HOUR), updatedAt: iso(BASE - 9 * HOUR) });
    const newer = makeDeck('grand-archive', { visibility: 'public', createdAt: iso(BASE + 50 * HOUR), updatedAt: iso(BASE + 50 * HOUR) });
    await put(older, newer);
    expect(Date.parse(older.updatedAt)).toBeLessThan(Date.parse(last.updatedAt));
    const resumed = await list(`gameId=grand-archive&limit=3&startAfter=${encodeURIComponent(walk.lastCursor)}`);
    expect(resumed.body.data.decks.map((d: { id: string }) => d.id)).toEqual([older.id]);
    expect(resumed.body.data.hasMore).toBe(false);
    expect(resumed.body.data.totalCount).toBe(expected('grand-archive').length);
  });

  it('answers 304 to If-None-Match with the ETag, and a new ETag once the decks change', async () => {
    const query = 'gameId=chrono-core&limit=10&sort=likeCount';
    const first = await list(query);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect(first.headers.get('vary')).toContain('X-API-Key');
    const second = await list(query, { ...auth(), 'If-None-Match': etag });
    expect(second.status).toBe(304);
    expect(second.headers.get('etag')).toBe(etag);
    await put(makeDeck('chrono-core', { visibility: 'public', likeCount: 1_000_000 }));
    const third = await list(query, { ...auth(), 'If-None-Match': etag });
    expect(third.status).toBe(200);
    expect(third.headers.get('etag')).not.toBe(etag);
  });

  it('ignores the Accept header', async () => {
    const r = await list('gameId=chrono-core&limit=2', { ...auth(), Accept: 'text/plain' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
  });
});

describe('GET /v1/decks/public: updatedSince (incremental sync)', () => {
  it('is inclusive, ascending, ties by id ascending; totalCount counts every matching deck', async () => {
    const want = expected('digimon');
    // A boundary that many decks share exactly.
    const counts = new Map<number, number>();
    for (const id of want) {
      const t = Date.parse(model.get(id)!.updatedAt);
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    const sorted = [...counts].filter(([, n]) => n >= 3).map(([t]) => t).sort((a, b) => a - b);
    const boundary = sorted[Math.floor(sorted.length / 2)]!;
    const since = expected('digimon', 'updatedAt', boundary);
    expect(since.filter((id) => Date.parse(model.get(id)!.updatedAt) === boundary).length).toBeGreaterThanOrEqual(3);
    expect(since.length).toBeLessThan(want.length);

    // The same instant spelled with an offset: 10:00+02:00 is 08:00Z.
    const offsetText = (() => {
      const d = new Date(boundary + 2 * HOUR);
      const pad = (n: number, w = 2) => String(n).padStart(w, '0');
      return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}+02:00`;
    })();
    expect(Date.parse(offsetText)).toBe(boundary);

    for (const updatedSince of [iso(boundary), offsetText]) {
      for (const limit of [4, 50]) {
        const walk = await walkListing(env.client, env.key, { gameId: 'digimon', updatedSince, limit: String(limit) });
        expect(walk.decks.map((d) => d.id)).toEqual(since);
        for (const page of walk.pages) expect(page.totalCount).toBe(since.length);
      }
    }
    const explicit = await walkListing(env.client, env.key, { gameId: 'digimon', updatedSince: iso(boundary), sort: 'updatedAt', limit: '50' });
    expect(explicit.decks.map((d) => d.id)).toEqual(since);
    // One millisecond later leaves out the decks exactly on the boundary.
    const later = await walkListing(env.client, env.key, { gameId: 'digimon', updatedSince: iso(boundary + 1), limit: '50' });
    expect(later.decks.map((d) => d.id)).toEqual(since.filter((id) => Date.parse(model.get(id)!.updatedAt) > boundary));
    // Before every deck: all of them, ascending.
    const all = await walkListing(env.client, env.key, { gameId: 'digimon', updatedSince: '2000-01-01T00:00:00Z', limit: '50' });
    expect(all.decks.map((d) => d.id)).toEqual(expected('digimon', 'updatedAt', 0));
    expect(all.pages[0].totalCount).toBe(want.length);
  });

  it('after every deck: an empty page with hasMore false, totalCount 0 and a nextCursor string', async () => {
    const r = await list('gameId=digimon&updatedSince=2030-01-01T00:00:00.000Z');
    expect(r.body.data).toEqual({ decks: [], nextCursor: expect.any(String), hasMore: false, totalCount: 0 });
  });

  it('resumes from the last nextCursor after new decks arrive: only what now sorts after that point', async () => {
    const updatedSince = iso(BASE + 2 * HOUR);
    const since = Date.parse(updatedSince);
    const first = await walkListing(env.client, env.key, { gameId: 'chrono-core', updatedSince, limit: '6' });
    expect(first.decks.map((d) => d.id)).toEqual(expected('chrono-core', 'updatedAt', since));
    const last = first.decks.at(-1)!;
    const lastMs = Date.parse(last.updatedAt);

    // Arrivals: later than everything; an old deck updated now; one on the last deck's timestamp
    // with a larger id (after the point) and one with a smaller id (before it); one older than the filter.
    const later = makeDeck('chrono-core', { visibility: 'public', createdAt: iso(BASE), updatedAt: iso(BASE + 30 * HOUR) });
    const touched = { ...model.get(expected('chrono-core', 'updatedAt', 0)[0]!)!, updatedAt: iso(BASE + 31 * HOUR), name: 'edited' };
    let sameAfter: DeckLine;
    let sameBefore: DeckLine;
    do sameAfter = makeDeck('chrono-core', { visibility: 'public', createdAt: iso(BASE), updatedAt: iso(lastMs) });
    while (sameAfter.id < last.id);
    do sameBefore = makeDeck('chrono-core', { visibility: 'public', createdAt: iso(BASE), updatedAt: iso(lastMs) });
    while (sameBefore.id > last.id);
    const tooOld = makeDeck('chrono-core', { visibility: 'public', createdAt: iso(BASE - HOUR), updatedAt: iso(BASE - HOUR) });
    await put(later, touched, sameAfter, sameBefore, tooOld);

    const resumed = await list(`gameId=chrono-core&limit=50&updatedSince=${encodeURIComponent(updatedSince)}&startAfter=${encodeURIComponent(first.lastCursor)}`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.decks.map((d: { id: string }) => d.id)).toEqual([sameAfter.id, later.id, touched.id]);
    expect(resumed.body.data.hasMore).toBe(false);
    expect(resumed.body.data.totalCount).toBe(expected('chrono-core', 'updatedAt', since).length);
    // The inclusive boundary: a client starting over sees the deck on the boundary again (and dedupes).
    const fresh = await walkListing(env.client, env.key, { gameId: 'chrono-core', updatedSince, limit: '50' });
    expect(fresh.decks.map((d) => d.id)).toEqual(expected('chrono-core', 'updatedAt', since));
    expect(fresh.decks.map((d) => d.id)).toContain(sameBefore.id);
    // And the cursor of the resumed page resumes again.
    const nothing = await list(`gameId=chrono-core&limit=50&updatedSince=${encodeURIComponent(updatedSince)}&startAfter=${encodeURIComponent(resumed.body.data.nextCursor)}`);
    expect(nothing.body.data.decks).toEqual([]);
  });
});

describe('GET /v1/decks/public: decks that stop being public', () => {
  it('a deck made private or deleted mid-walk is not returned; private → public brings it back', async () => {
    const before = expected('digimon');
    const toHide = before[23]!;
    const toDelete = before[31]!;
    const walk = await walkListing(env.client, env.key, { gameId: 'digimon', limit: '10' }, {
      between: async (page) => {
        if (page !== 0) return;
        await put({ ...model.get(toHide)!, visibility: 'private' });
        await remove(toDelete);
      },
    });
    const ids = walk.decks.map((d) => d.id);
    expect(ids).not.toContain(toHide);
    expect(ids).not.toContain(toDelete);
    expect(ids).toEqual(before.filter((id) => id !== toHide && id !== toDelete));
    expect(walk.pages.at(-1).totalCount).toBe(before.length - 2);

    const details = await env.client.post('/decks/details', JSON.stringify({ ids: [toHide, toDelete, before[0]] }), auth());
    expect(details.status).toBe(200);
    expect(details.body.data.unresolved).toEqual([toHide, toDelete]);
    expect(details.body.data.decks.map((d: { id: string }) => d.id)).toEqual([before[0]]);
    expect((await env.client.get(`/decks/${toHide}`)).status).toBe(404);
    expect((await env.client.get(`/decks/${toDelete}`)).status).toBe(404);

    await put({ ...model.get(toHide)!, visibility: 'public' });
    const back = await walkListing(env.client, env.key, { gameId: 'digimon', limit: '50' });
    expect(back.decks.map((d) => d.id)).toEqual(expected('digimon'));
    expect(back.decks.map((d) => d.id)).toContain(toHide);
    const again = await env.client.post('/decks/details', JSON.stringify({ ids: [toHide] }), auth());
    expect(again.body.data).toMatchObject({ unresolved: [] });
    expect(again.body.data.decks).toHaveLength(1);
    expect((await env.client.get(`/decks/${toHide}`)).status).toBe(200);
  });

  it('an incremental walk loses a deck that went private, with no tombstone', async () => {
    const updatedSince = '2000-01-01T00:00:00Z';
    const want = expected('chrono-core', 'updatedAt', 0);
    const gone = want[8]!;
    const walk = await walkListing(env.client, env.key, { gameId: 'chrono-core', updatedSince, limit: '5' }, {
      between: async (page) => {
        if (page === 0) await put({ ...model.get(gone)!, visibility: 'private' });
      },
    });
    expect(walk.decks.map((d) => d.id)).toEqual(want.filter((id) => id !== gone));
  });
});

describe('GET /v1/decks/public: cursors', () => {
  it('rejects malformed, tampered and foreign startAfter values with 400 Invalid cursor', async () => {
    const cursorOf = async (query: string) => (await list(query)).body.data.nextCursor as string;
    const base = 'gameId=digimon&limit=5';
    const cursor = await cursorOf(base);
    const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === 'A' ? 'B' : 'A') + s.slice(at + 1);
    const dot = cursor.indexOf('.');
    const since = '2026-01-10T09:00:00.000Z';
    const sinceCursor = await cursorOf(`${base}&updatedSince=${since}`);
    const cards = (await env.client.get('/games/digimon/cards?hitsPerPage=100', auth())).body.data.cursor as string;
    const forged = `${Buffer.from(`d1|digimon|updatedAt|d|-|${Date.UTC(2026, 0, 1)}|${newId()}`).toString('base64url')}.${'A'.repeat(22)}`;
    const cases: Array<[string, string, string]> = [
      ['garbage', base, 'not-a-cursor'],
      ['tampered payload', base, flip(cursor, 2)],
      ['tampered payload, end', base, flip(cursor, dot - 1)],
      ['tampered signature', base, flip(cursor, cursor.length - 2)],
      ['truncated', base, cursor.slice(0, -3)],
      ['no signature', base, cursor.slice(0, dot)],
      ['doubled', base, `${cursor}${cursor}`],
      ['forged', base, forged],
      ['very long', base, 'A'.repeat(5000)],
      ['a card-walk cursor', base, cards],
      ['other game', 'gameId=chrono-core&limit=5', cursor],
      ['other sort', `${base}&sort=copyCount`, cursor],
      ['other sort (createdAt)', `${base}&sort=createdAt`, cursor],
      ['with updatedSince added', `${base}&updatedSince=${since}`, cursor],
      ['with updatedSince removed', base, sinceCursor],
      ['other updatedSince', `${base}&updatedSince=2026-01-10T09:00:00.001Z`, sinceCursor],
      ['other game, same filter', `gameId=chrono-core&limit=5&updatedSince=${since}`, sinceCursor],
    ];
    // The same cursor with the same listing parameters is fine, even spelled differently.
    expect((await list(`${base}&startAfter=${encodeURIComponent(cursor)}`)).status).toBe(200);
    expect((await list(`${base}&updatedSince=2026-01-10T10:00:00%2B01:00&startAfter=${encodeURIComponent(sinceCursor)}`)).status).toBe(200);
    expect((await list(`gameId=digimon&limit=20&startAfter=${encodeURIComponent(cursor)}`)).status).toBe(200);
    for (const [label, query, bad] of cases) {
      const r = await list(`${query}&startAfter=${encodeURIComponent(bad)}`);
      expect([label, r.status, r.body.error]).toEqual([label, 400, ERRORS.invalidCursor]);
    }
    // A cursor of another listing's sort family never leaks its game's decks.
    const chrono = await cursorOf('gameId=chrono-core&limit=5&sort=viewCount');
    expect((await list(`gameId=digimon&limit=5&sort=viewCount&startAfter=${encodeURIComponent(chrono)}`)).status).toBe(400);
  });

  it('a cursor keeps working when the gateway restarts (the signing key is stored)', async () => {
    const first = await list('gameId=digimon&limit=5&sort=viewCount');
    const { startTestGateway } = await import('./helpers/harness.ts');
    const other = await startTestGateway({ snapshots: env.snapshots, db: env.dbFile });
    try {
      const r = await fetch(`${other.base}/decks/public?gameId=digimon&limit=5&sort=viewCount&startAfter=${encodeURIComponent(first.body.data.nextCursor)}`, { headers: auth() });
      expect(r.status).toBe(200);
      expect(((await r.json()) as any).data.decks.map((d: { id: string }) => d.id)).toEqual(expected('digimon', 'viewCount').slice(5, 10));
    } finally {
      await other.close();
    }
  });
});

describe('GET /v1/decks/public: errors and their precedence', () => {
  it('401 without a key or with an invalid one', async () => {
    const missing = await list('gameId=digimon', {});
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: ERRORS.apiKeyRequired });
    for (const bad of ['nope', 'sd_live_00000000000000000000000000000000', `${env.key}0`]) {
      const invalid = await list('gameId=digimon', { 'X-API-Key': bad });
      expect(invalid.status).toBe(401);
      expect(invalid.body).toEqual({ error: ERRORS.invalidApiKey });
    }
  });

  it('403 Insufficient scope without decks:browse:public', async () => {
    for (const scopes of [[], ['decks:read:public']]) {
      const key = env.gateway.createKey({ scopes });
      const r = await list('gameId=digimon', { 'X-API-Key': key });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: ERRORS.insufficientScope });
    }
  });

  it('400 gameId query parameter is required; 404 Game not found for unknown and internal games', async () => {
    for (const query of ['', 'gameId=', 'limit=5', 'gameid=digimon']) {
      const r = await list(query);
      expect([query, r.status, r.body.error]).toEqual([query, 400, ERRORS.gameIdRequired]);
    }
    for (const game of ['pokemon', 'chrono-core-playtest', 'Digimon', 'digimon ']) {
      const r = await list(`gameId=${encodeURIComponent(game)}`);
      expect([game, r.status, r.body.error]).toEqual([game, 404, ERRORS.gameNotFound]);
    }
  });

  it('400 for a bad sort or updatedSince; updatedSince with another sort is 400 gameId query parameter is required, with a detail', async () => {
    for (const sort of ['name', 'updatedat', 'UPDATEDAT', '', 'id']) {
      const r = await list(`gameId=digimon&sort=${encodeURIComponent(sort)}`);
      expect([sort, r.status, r.body.error]).toEqual([sort, 400, ERRORS.sortInvalid]);
    }
    for (const since of ['yesterday', '2026-01-10', '2026-01-10T00:00:00', '2026-02-30T00:00:00Z', '2026-01-10T25:00:00Z', '', '1736496000000']) {
      const r = await list(`gameId=digimon&updatedSince=${encodeURIComponent(since)}`);
      expect([since, r.status, r.body.error]).toEqual([since, 400, ERRORS.updatedSinceInvalid]);
    }
    for (const sort of ['copyCount', 'viewCount', 'likeCount', 'createdAt']) {
      const r = await list(`gameId=digimon&sort=${sort}&updatedSince=2026-01-10T00:00:00Z`);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe(ERRORS.gameIdRequired);
      expect(r.body.detail).toMatch(/updatedSince/);
    }
  });

  it('429 Rate limit exceeded once the key quota is used, with Retry-After and the quota headers', async () => {
    const key = env.gateway.createKey({ scopes: BOTH_SCOPES, quota: 2 });
    const ok = await list('gameId=digimon&limit=1', { 'X-API-Key': key });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('ratelimit-limit')).toBe('2');
    expect(ok.headers.get('ratelimit-remaining')).toBe('1');
    expect((await list('gameId=digimon&limit=1', { 'X-API-Key': key })).status).toBe(200);
    const limited = await list('gameId=digimon&limit=1', { 'X-API-Key': key });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: ERRORS.rateLimitExceeded });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(limited.headers.get('ratelimit-policy')).toBe('"default";q=2;w=900');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('follows 401 → 429 → 403 → 400 required → 404 game → 400 other', async () => {
    const everythingWrong = 'limit=abc&sort=nope&updatedSince=x&startAfter=junk';
    // 401 before anything else.
    expect((await list(everythingWrong, {})).body).toEqual({ error: ERRORS.apiKeyRequired });
    expect((await list(`gameId=pokemon&${everythingWrong}`, { 'X-API-Key': 'sd_live_nope' })).body).toEqual({ error: ERRORS.invalidApiKey });
    // 403 before 400 required: a key without the scope.
    const noScope = env.gateway.createKey({ scopes: [], quota: 2 });
    expect((await list(everythingWrong, { 'X-API-Key': noScope })).status).toBe(403);
    expect((await list(`gameId=pokemon&${everythingWrong}`, { 'X-API-Key': noScope })).body).toEqual({ error: ERRORS.insufficientScope });
    // 429 before 403: the same key, its quota now used up.
    const limited = await list(everythingWrong, { 'X-API-Key': noScope });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: ERRORS.rateLimitExceeded });
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    // 400 required before 404 game and other 400s.
    expect((await list(everythingWrong)).body).toEqual({ error: ERRORS.gameIdRequired });
    // 404 game before other 400s (bad limit, sort, updatedSince, cursor; the sort/updatedSince conflict).
    expect((await list(`gameId=pokemon&${everythingWrong}`)).body).toEqual({ error: ERRORS.gameNotFound });
    expect((await list('gameId=chrono-core-playtest&sort=copyCount&updatedSince=2026-01-01T00:00:00Z')).body).toEqual({ error: ERRORS.gameNotFound });
    // Then the other 400s.
    expect((await list('gameId=digimon&limit=abc&startAfter=junk')).status).toBe(400);
    expect((await list('gameId=digimon&startAfter=junk')).body).toEqual({ error: ERRORS.invalidCursor });
    // An empty one is no cursor at all (as `cursor=` on the card walk): the first page.
    const empty = await list('gameId=digimon&limit=3&startAfter=');
    expect(empty.status).toBe(200);
    expect(empty.body.data.decks).toEqual((await list('gameId=digimon&limit=3')).body.data.decks);
  });

  it('405 for other methods, as JSON', async () => {
    const r = await env.client.request('POST', '/decks/public?gameId=digimon', '{}', auth());
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ error: ERRORS.methodNotAllowed });
  });
});
