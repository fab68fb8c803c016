import { DECK_SORTS, publicDecksResponse, type DeckSort, type PublicDecksPage } from '@snapdeck/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeDeckCursor } from './cursor.ts';
import { importDecks } from './import.ts';
import { listPublicDecks, type PublicListingRequest } from './listing.ts';
import { getOrCreateSecret, DECK_CURSOR_SECRET } from './secret.ts';
import { listingStatements, sinceStatements } from './listing-statements.ts';
import { DeckStore } from './store.ts';
import { deck, line, newId, tempDb, type LineDeck, type TempDb } from '../../../../test/helpers/deck-db.ts';

let t: TempDb;
let store: DeckStore;
let key: Buffer;
let clock: number;

beforeEach(() => {
  t = tempDb();
  clock = Date.UTC(2026, 0, 10);
  store = new DeckStore(t.db, { now: () => clock });
  key = getOrCreateSecret(t.db, DECK_CURSOR_SECRET);
});
afterEach(() => t.close());

const SORT_FIELD: Record<DeckSort, (d: LineDeck) => number> = {
  updatedAt: (d) => Date.parse(d.updatedAt),
  createdAt: (d) => Date.parse(d.createdAt),
  copyCount: (d) => d.copyCount ?? 0,
  viewCount: (d) => d.viewCount ?? 0,
  likeCount: (d) => d.likeCount ?? 0,
};

/** Decks with few distinct values per field, so most pages end in the middle of a tie. */
function tiedDecks(count: number, gameId = 'digimon'): LineDeck[] {
  return Array.from({ length: count }, (_, i) => {
    const created = Date.UTC(2026, 0, 1) + (i % 4) * 60_000;
    return deck({
      gameId,
      visibility: i % 9 === 0 ? 'private' : 'public',
      createdAt: new Date(created).toISOString(),
      updatedAt: new Date(created + (i % 3) * 1000).toISOString(),
      copyCount: i % 5,
      viewCount: (i * 7) % 3,
      likeCount: i % 2,
      cards: [],
    });
  });
}

function expectedOrder(decks: LineDeck[], game: string, sort: DeckSort, since: number | null): string[] {
  const field = SORT_FIELD[sort];
  const matching = decks.filter((d) => d.gameId === game && d.visibility === 'public' && (since === null || Date.parse(d.updatedAt) >= since));
  const direction = since === null ? -1 : 1;
  return matching
    .sort((a, b) => direction * (field(a) - field(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    .map((d) => d.id);
}

function page(request: Partial<PublicListingRequest> & { startAfter?: string }): PublicDecksPage {
  const result = listPublicDecks(store, key, { game: 'digimon', sort: 'updatedAt', limit: 20, updatedSince: null, ...request });
  if (!result.ok) throw new Error('cursor rejected');
  // Every page must satisfy the contract's response schema.
  publicDecksResponse.parse({ data: result.page });
  return result.page;
}

/** Follows nextCursor until hasMore is false; returns every id and the final cursor. */
function walk(request: Partial<PublicListingRequest>): { ids: string[]; pages: PublicDecksPage[]; cursor: string } {
  const ids: string[] = [];
  const pages: PublicDecksPage[] = [];
  let startAfter: string | undefined;
  for (let n = 0; n < 10_000; n++) {
    const p = page({ ...request, startAfter });
    pages.push(p);
    ids.push(...p.decks.map((d) => d.id));
    startAfter = p.nextCursor;
    if (!p.hasMore) return { ids, pages, cursor: p.nextCursor };
  }
  throw new Error('walk did not end');
}

describe('listing order and keyset pagination', () => {
  let decks: LineDeck[];
  beforeEach(async () => {
    decks = [...tiedDecks(230), ...tiedDecks(40, 'gundam')];
    await importDecks(t.db, decks.map(line));
  });

  it.each(DECK_SORTS)('sort=%s: descending, ties by id descending, every public deck exactly once', (sort) => {
    const expected = expectedOrder(decks, 'digimon', sort, null);
    for (const limit of [1, 7, 50]) {
      const { ids, pages } = walk({ sort, limit });
      expect(ids).toEqual(expected);
      expect(pages.every((p) => p.totalCount === expected.length)).toBe(true);
      expect(pages.slice(0, -1).every((p) => p.hasMore && p.decks.length === limit)).toBe(true);
    }
  });

  it('updatedSince: ascending by updatedAt, ties by id ascending, boundary inclusive', () => {
    const boundary = Date.UTC(2026, 0, 1) + 60_000 + 1000; // an updatedAt several decks have
    const expected = expectedOrder(decks, 'digimon', 'updatedAt', boundary);
    expect(decks.some((d) => Date.parse(d.updatedAt) === boundary && d.visibility === 'public' && d.gameId === 'digimon')).toBe(true);
    const { ids, pages } = walk({ updatedSince: boundary, limit: 9 });
    expect(ids).toEqual(expected);
    expect(pages[0]!.totalCount).toBe(expected.length);
    const times = pages.flatMap((p) => p.decks.map((d) => Date.parse(d.updatedAt)));
    expect(times[0]).toBe(boundary);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it('updatedSince older than every deck counts everything (from the counter)', () => {
    const expected = expectedOrder(decks, 'digimon', 'updatedAt', 0);
    expect(page({ updatedSince: 0, limit: 5 }).totalCount).toBe(expected.length);
    expect(page({ updatedSince: Date.UTC(2030, 0, 1) })).toMatchObject({ decks: [], hasMore: false, totalCount: 0 });
  });

  it('summaries carry exactly id, gameId, createdAt and updatedAt, ISO with milliseconds', () => {
    const first = page({ limit: 1 }).decks[0]!;
    expect(Object.keys(first).sort()).toEqual(['createdAt', 'gameId', 'id', 'updatedAt']);
    expect(first.updatedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('hasMore is false when the last page is exactly full', () => {
    const total = expectedOrder(decks, 'gundam', 'likeCount', null).length;
    const first = page({ game: 'gundam', sort: 'likeCount', limit: total });
    expect(first).toMatchObject({ hasMore: false, totalCount: total });
    expect(first.decks).toHaveLength(total);
    expect(page({ game: 'gundam', sort: 'likeCount', limit: total, startAfter: first.nextCursor })).toMatchObject({ decks: [], hasMore: false });
  });

  it('a listing of a game without decks is empty, with a cursor', () => {
    const empty = page({ game: 'chrono-core' });
    expect(empty).toMatchObject({ decks: [], hasMore: false, totalCount: 0 });
    expect(typeof empty.nextCursor).toBe('string');
  });

  it('private decks and other games never appear; a deck made private leaves the listing', async () => {
    const before = walk({ limit: 50 }).ids;
    const target = decks.find((d) => d.id === before[3])!;
    await importDecks(t.db, [line({ ...target, visibility: 'private' })]);
    const after = walk({ limit: 50 }).ids;
    expect(after).toEqual(before.filter((id) => id !== target.id));
    expect(page({}).totalCount).toBe(before.length - 1);
  });
});

describe('nextCursor past the end', () => {
  it('resumes an updatedSince walk with only the decks changed since', async () => {
    const decks = tiedDecks(30);
    await importDecks(t.db, decks.map(line));
    const since = Date.UTC(2025, 0, 1);
    const first = walk({ updatedSince: since, limit: 8 });
    expect(page({ updatedSince: since, startAfter: first.cursor })).toMatchObject({ decks: [], hasMore: false });

    const changed = { ...decks[4]!, updatedAt: '2026-03-01T00:00:00.000Z' };
    const added = deck({ createdAt: '2026-03-02T00:00:00.000Z', updatedAt: '2026-03-02T00:00:00.000Z' });
    await importDecks(t.db, [line(changed), line(added)]);
    const resumed = walk({ updatedSince: since, limit: 8 } as Partial<PublicListingRequest>);
    expect(resumed.ids).toHaveLength(first.ids.length + 1);
    const next = page({ updatedSince: since, startAfter: first.cursor });
    expect(next.decks.map((d) => d.id)).toEqual([changed.id, added.id]);
    expect(next.hasMore).toBe(false);
  });

  it('from an empty page: the cursor points at the start, so following it later returns everything', async () => {
    const empty = page({ game: 'gundam', sort: 'copyCount' });
    const decks = tiedDecks(12, 'gundam');
    await importDecks(t.db, decks.map(line));
    const later = page({ game: 'gundam', sort: 'copyCount', startAfter: empty.nextCursor, limit: 50 });
    expect(later.decks.map((d) => d.id)).toEqual(expectedOrder(decks, 'gundam', 'copyCount', null));
  });

  it('an empty page after a cursor keeps that cursor position', async () => {
    await importDecks(t.db, tiedDecks(5).map(line));
    const last = walk({ sort: 'createdAt', limit: 50 }).cursor;
    const again = page({ sort: 'createdAt', startAfter: last });
    expect(again.decks).toEqual([]);
    // Same listing, same position: the same cursor.
    expect(again.nextCursor).toBe(last);
  });
});

describe('cursor checks', () => {
  it('rejects tampered, malformed and foreign cursors', async () => {
    await importDecks(t.db, tiedDecks(10).map(line));
    const good = page({ limit: 2 }).nextCursor;
    const rejected = (startAfter: string, request: Partial<PublicListingRequest> = {}) =>
      listPublicDecks(store, key, { game: 'digimon', sort: 'updatedAt', limit: 2, updatedSince: null, ...request, startAfter });
    expect(rejected(good).ok).toBe(true);
    const [payload, mac] = good.split('.') as [string, string];
    const forged = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('|d|', '|a|')).toString('base64url');
    for (const bad of ['', 'x', 'abc.def', `${payload}.`, `.${mac}`, `${forged}.${mac}`, `${payload}.${mac}A`, `${payload}x.${mac}`, good.toUpperCase(), `${good}.x`]) {
      expect(rejected(bad)).toEqual({ ok: false, error: 'invalidCursor' });
    }
    expect(rejected(good, { game: 'gundam' }).ok).toBe(false);
    expect(rejected(good, { sort: 'likeCount' }).ok).toBe(false);
    expect(rejected(good, { updatedSince: 0 }).ok).toBe(false);
    const since = page({ updatedSince: 5, limit: 1 }).nextCursor;
    expect(rejected(since, { updatedSince: 5 }).ok).toBe(true);
    expect(rejected(since, { updatedSince: 6 }).ok).toBe(false);
    expect(rejected(since).ok).toBe(false);
    // Signed with another key (another database): rejected.
    const foreign = encodeDeckCursor(Buffer.alloc(32, 7), { game: 'digimon', sort: 'updatedAt', updatedSince: null }, null);
    expect(rejected(foreign).ok).toBe(false);
  });

  it('the cursor key is created once per database and shared by every connection', () => {
    const again = getOrCreateSecret(t.db, DECK_CURSOR_SECRET);
    expect(again.equals(key)).toBe(true);
    expect(key.length).toBe(32);
  });
});

describe('decks by id', () => {
  it('getDeck returns any visibility with entries in import order; unknown and malformed ids are null', async () => {
    const d = deck({ visibility: 'private', cards: [{ cardId: 'BT1-003', quantity: 1 }, { cardId: 'BT1-001', quantity: 4, zoneId: 'digi-egg' }] });
    await importDecks(t.db, [line(d)]);
    expect(store.getDeck(d.id.toUpperCase())).toMatchObject({ id: d.id, visibility: 'private', cards: [{ cardId: 'BT1-003', quantity: 1, zoneId: null }, { cardId: 'BT1-001', quantity: 4, zoneId: 'digi-egg' }] });
    expect(store.getDeck(newId())).toBeNull();
    expect(store.getDeck('not-a-uuid')).toBeNull();
    expect(store.getDeck("' OR 1=1 --")).toBeNull();
  });

  it('getPublicDecks returns the public ones with their entries, whatever the request holds', async () => {
    const decks = Array.from({ length: 50 }, (_, i) =>
      deck({ visibility: i % 5 === 0 ? 'private' : 'public', cards: Array.from({ length: (i % 4) + 1 }, (_, j) => ({ cardId: `BT${i}-${j}`, quantity: j + 1 })) }),
    );
    await importDecks(t.db, decks.map(line));
    const ids = [...decks.map((d) => d.id), decks[1]!.id, 'garbage', newId()];
    const found = store.getPublicDecks(ids);
    const publicDecks = decks.filter((d) => d.visibility === 'public');
    expect(found.map((d) => d.id).sort()).toEqual(publicDecks.map((d) => d.id).sort());
    for (const d of found) {
      expect(d.cards).toEqual(publicDecks.find((p) => p.id === d.id)!.cards.map((c) => ({ ...c, zoneId: null })));
    }
    expect(store.getPublicDecks([])).toEqual([]);
    expect(store.getPublicDecks(['nope'])).toEqual([]);
  });
});

describe('tokens', () => {
  let d: LineDeck;
  let other: LineDeck;
  beforeEach(async () => {
    d = deck({ visibility: 'private' });
    other = deck({ visibility: 'private' });
    await importDecks(t.db, [line(d), line(other)]);
  });

  it('a share token opens its deck until it expires (24 hours by default)', () => {
    const token = store.createShareToken(d.id)!;
    expect(token).toMatch(/^st_[0-9a-f]{32}$/);
    expect(store.resolveToken(d.id, token)).toBe(true);
    expect(store.resolveToken(d.id.toUpperCase(), token)).toBe(true);
    expect(store.resolveToken(d.id, token, clock + 86_400_000 - 1)).toBe(true);
    expect(store.resolveToken(d.id, token, clock + 86_400_000)).toBe(false);
    clock += 86_400_000 + 5;
    expect(store.resolveToken(d.id, token)).toBe(false);
  });

  it('an operator may issue shorter share tokens, never longer ones', () => {
    const token = store.createShareToken(d.id, 60)!;
    expect(store.resolveToken(d.id, token, clock + 59_999)).toBe(true);
    expect(store.resolveToken(d.id, token, clock + 60_000)).toBe(false);
    expect(() => store.createShareToken(d.id, 86_401)).toThrow(RangeError);
    expect(() => store.createShareToken(d.id, 0)).toThrow(RangeError);
    expect(() => store.createShareToken(d.id, 1.5)).toThrow(RangeError);
  });

  it('a pd_ private link never expires', () => {
    const link = store.createPrivateLink(d.id)!;
    expect(link).toMatch(/^pd_[0-9a-f]{32}$/);
    expect(store.resolveToken(d.id, link, clock + 10 * 365 * 86_400_000)).toBe(true);
  });

  it('a token of another deck, an unknown or malformed token does not open a deck', () => {
    const token = store.createShareToken(d.id)!;
    const link = store.createPrivateLink(d.id)!;
    expect(store.resolveToken(other.id, token)).toBe(false);
    expect(store.resolveToken(other.id, link)).toBe(false);
    expect(store.resolveToken(d.id, `st_${'0'.repeat(32)}`)).toBe(false);
    expect(store.resolveToken(d.id, `pd_${'0'.repeat(32)}`)).toBe(false);
    expect(store.resolveToken(d.id, '')).toBe(false);
    expect(store.resolveToken(d.id, token.toUpperCase())).toBe(false);
    expect(store.resolveToken(d.id, `${link}x`)).toBe(false);
    expect(store.resolveToken('garbage', link)).toBe(false);
  });

  it('tokens are stored hashed, and unknown decks get none', () => {
    const token = store.createShareToken(d.id)!;
    const link = store.createPrivateLink(d.id)!;
    const stored = JSON.stringify(t.db.prepare('SELECT * FROM deck_tokens').all());
    expect(stored).not.toContain(token.slice(3));
    expect(stored).not.toContain(link.slice(3));
    expect(store.createShareToken(newId())).toBeNull();
    expect(store.createPrivateLink('garbage')).toBeNull();
  });

  it('revokeTokens removes every token of a deck; expired share tokens are pruned', () => {
    const link = store.createPrivateLink(d.id)!;
    store.createShareToken(d.id, 10);
    const kept = store.createPrivateLink(other.id)!;
    clock += 20_000;
    store.createShareToken(other.id); // prunes the expired one
    expect(t.db.prepare('SELECT COUNT(*) FROM deck_tokens').pluck().get()).toBe(3);
    expect(store.revokeTokens(d.id)).toBe(1);
    expect(store.resolveToken(d.id, link)).toBe(false);
    expect(store.resolveToken(other.id, kept)).toBe(true);
  });
});

describe('query plans', () => {
  it('every listing and count query reads its index range: no table scan, no temp b-tree', async () => {
    // Plans are checked on a populated, analysed database, where a planner would be most tempted.
    await importDecks(t.db, [...tiedDecks(300), ...tiedDecks(300, 'gundam')].map(line));
    t.db.exec('ANALYZE');
    const statements = [...DECK_SORTS.flatMap((sort) => Object.values(listingStatements(t.db, sort))), ...Object.values(sinceStatements(t.db))].map((s) => s.source);
    expect(statements.length).toBe(14);
    for (const sql of statements) {
      // The first parameter is the game; the values of the others do not change a plan.
      const params = (sql.match(/\?/g) ?? []).map((_, i) => (i === 0 ? 'digimon' : 1));
      const plan = (t.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');
      expect(plan, sql).toMatch(/^SEARCH decks USING COVERING INDEX decks_public_\w+ \(game_id=\?/m);
      expect(plan, sql).not.toMatch(/TEMP B-TREE|SCAN decks/);
      // A page after a cursor starts at the cursor: the row value bounds the index range.
      if (/\(\w+, id\) [<>] \(\?, \?\)/.test(sql)) expect(plan, sql).toMatch(/AND \(\w+,id\)[<>]\(\?,\?\)\)/);
    }
  });

  it('fetching decks by id uses the id and entry keys', () => {
    const plans = [
      "SELECT seq FROM decks WHERE id IN (SELECT value FROM json_each('[]')) AND visibility = 'public'",
      "SELECT deck_seq, card_id, quantity, zone_id FROM deck_cards WHERE deck_seq IN (SELECT value FROM json_each('[]')) ORDER BY deck_seq, position",
    ].map((sql) => (t.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail).join('\n'));
    expect(plans[0]).toMatch(/SEARCH decks USING INDEX sqlite_autoindex_decks_1 \(id=\?\)/);
    expect(plans[1]).toMatch(/SEARCH deck_cards USING PRIMARY KEY \(deck_seq=\?\)/);
    expect(plans.join('\n')).not.toMatch(/SCAN decks|SCAN deck_cards/);
  });
});
