import { randomBytes } from 'node:crypto';
import { DECK_SORTS, LOWER_CASE_UUID_V4, type DeckSort, type DeckSummary, type GameSlug } from '@snapdeck/contract';
import type { Db } from '../db/database.ts';
import { DeckCache } from './deck-cache.ts';
import { hashSecret } from '../keys/store.ts';
import { listingStatements, sinceStatements, type ListingStatements, type SummaryRow } from './listing-statements.ts';
import { toIso } from './timestamps.ts';
import type { DeckPosition, StoredCardEntry, StoredDeck, Visibility } from './types.ts';

/**
 * Decks in SQLite (schema: migration 2 in db/migrations.ts).
 *
 * Listings are keyset-paginated (never OFFSET): a page is one range read of the partial index of
 * its sort (public decks of one game, ordered by (sort value, id)), scanned backwards for the
 * descending listings and forwards for an updatedSince walk (the statements, each bound to its
 * index: listing-statements.ts).
 *
 * totalCount:
 * - without updatedSince: deck_public_counts, kept exact by triggers in the same transaction as
 *   every write to decks (one primary-key read per request);
 * - with updatedSince: COUNT over the range of the updated_at index (O(matching decks), no table
 *   access). Incremental syncs ask for recent changes, so the range is short; a filter older than
 *   every public deck of the game is answered from the counter instead, and a count is reused for
 *   the following pages of a walk until the database changes.
 */

export const MAX_LIST_LIMIT = 1000;

export interface ListPublicQuery {
  game: GameSlug;
  sort: DeckSort;
  /** Decks per page, 1 to MAX_LIST_LIMIT (the route clamps the contract's 1 to 50). */
  limit: number;
  /** Start just after this position (from a cursor); from the start when absent. */
  after?: DeckPosition | null;
  /** Only decks with updatedAt >= this (epoch ms), ascending; only with sort updatedAt. */
  updatedSince?: number | null;
}

export interface ListPublicPage {
  decks: DeckSummary[];
  totalCount: number;
  hasMore: boolean;
  /** Position of the last deck returned, or `after` when the page is empty (the next cursor). */
  last: DeckPosition | null;
}

export interface DeckStoreOptions {
  /** The clock for token expiry (tests inject one). */
  now?: () => number;
  /**
   * Where tokens are looked up (by hash) instead of this database's deck_tokens: a gateway
   * following the published store keeps them in the separate auth part (published/layout.ts).
   */
  tokens?: TokenLookup;
}

/** The deck a token hash was issued for, and when it expires (null: never), or undefined. */
export type TokenLookup = (tokenHash: string) => { deck_id: string; expires_at: number | null } | undefined;

/** Share tokens live at most 24 hours (interface.md §8); an operator may issue shorter ones. */
export const MAX_SHARE_TTL_SECONDS = 86_400;
export const SHARE_TOKEN_PATTERN = /^st_[0-9a-f]{32}$/;
export const PRIVATE_LINK_PATTERN = /^pd_[0-9a-f]{32}$/;

interface DeckRow {
  seq: number;
  id: string;
  game_id: string;
  name: string;
  owner_display_name: string;
  visibility: string;
  created_at: number;
  updated_at: number;
  copy_count: number;
  view_count: number;
  like_count: number;
}

interface CardRow {
  deck_seq: number;
  card_id: string;
  quantity: number;
  zone_id: string | null;
}

const DECK_COLUMNS = 'seq, id, game_id, name, owner_display_name, visibility, created_at, updated_at, copy_count, view_count, like_count';

export class DeckStore {
  private readonly now: () => number;
  private readonly listing: Record<DeckSort, ListingStatements>;
  private readonly since: ReturnType<typeof sinceStatements>;
  private readonly statements;
  /** updatedSince counts reused across the pages of a walk; dropped when the database changes. */
  private readonly sinceCounts = new Map<string, number>();
  private countsState = '';

  private readonly tokenLookup: TokenLookup;
  /** Decks read, kept until the database changes (deck-cache.ts). */
  private readonly cache: DeckCache;

  constructor(readonly db: Db, options: DeckStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.listing = Object.fromEntries(DECK_SORTS.map((sort) => [sort, listingStatements(db, sort)])) as Record<DeckSort, ListingStatements>;
    this.since = sinceStatements(db);
    this.statements = {
      publicCount: db.prepare<[string], { count: number }>('SELECT count FROM deck_public_counts WHERE game_id = ?'),
      // data_version moves when another connection commits; total_changes when this one writes.
      dbState: db.prepare<[], { v: number; c: number }>('SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c'),
      deckById: db.prepare<[string], DeckRow>(`SELECT ${DECK_COLUMNS} FROM decks WHERE id = ?`),
      cardsOfDeck: db.prepare<[number], CardRow>('SELECT deck_seq, card_id, quantity, zone_id FROM deck_cards WHERE deck_seq = ? ORDER BY position'),
      // Up to 50 decks and their cards in two statements, whatever the number of ids (json_each).
      decksByIds: db.prepare<[string], DeckRow>(`SELECT ${DECK_COLUMNS} FROM decks WHERE id IN (SELECT value FROM json_each(?))`),
      cardsOfDecks: db.prepare<[string], CardRow>(
        'SELECT deck_seq, card_id, quantity, zone_id FROM deck_cards WHERE deck_seq IN (SELECT value FROM json_each(?)) ORDER BY deck_seq, position',
      ),
      seqOf: db.prepare<[string], { seq: number }>('SELECT seq FROM decks WHERE id = ?'),
      tokenFor: db.prepare<[string], { deck_id: string; expires_at: number | null }>(
        'SELECT d.id AS deck_id, t.expires_at FROM deck_tokens t JOIN decks d ON d.seq = t.deck_seq WHERE t.token_hash = ?',
      ),
      insertToken: db.prepare('INSERT INTO deck_tokens (token_hash, deck_seq, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
      pruneTokens: db.prepare('DELETE FROM deck_tokens WHERE expires_at IS NOT NULL AND expires_at <= ?'),
      deleteTokens: db.prepare('DELETE FROM deck_tokens WHERE deck_seq = ?'),
    };
    const tokenFor = this.statements.tokenFor;
    this.tokenLookup = options.tokens ?? ((hash) => tokenFor.get(hash));
    this.cache = new DeckCache(db);
  }

  /** One keyset page of a game's public decks (decisions.md "Decks" for the order). */
  listPublic(query: ListPublicQuery): ListPublicPage {
    const { game, sort, limit } = query;
    const after = query.after ?? null;
    const updatedSince = query.updatedSince ?? null;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
    if (updatedSince !== null && sort !== 'updatedAt') throw new RangeError('updatedSince is only valid with sort updatedAt');

    // One row more than asked tells whether another page exists, without a second query.
    let rows: SummaryRow[];
    if (updatedSince === null) {
      const s = this.listing[sort];
      rows = after ? s.descAfter.all(game, after.value, after.id, limit + 1) : s.descFirst.all(game, limit + 1);
    } else {
      rows =
        after && after.value >= updatedSince
          ? this.since.ascAfter.all(game, after.value, after.id, limit + 1)
          : this.since.ascFirst.all(game, updatedSince, limit + 1);
    }
    const hasMore = rows.length > limit;
    if (hasMore) rows.length = limit;
    const lastRow = rows[rows.length - 1];
    return {
      decks: rows.map((row) => ({ id: row.id, gameId: row.game_id as GameSlug, createdAt: toIso(row.created_at), updatedAt: toIso(row.updated_at) })),
      totalCount: this.totalCount(game, updatedSince),
      hasMore,
      last: lastRow ? { value: lastRow.v, id: lastRow.id } : after,
    };
  }

  /** Public decks of a game, optionally only those with updatedAt >= updatedSince. */
  totalCount(game: GameSlug, updatedSince: number | null = null): number {
    const all = this.statements.publicCount.get(game)?.count ?? 0;
    if (updatedSince === null || all === 0) return all;
    const state = this.statements.dbState.get()!;
    const stateKey = `${state.v}:${state.c}`;
    if (stateKey !== this.countsState) {
      this.sinceCounts.clear();
      this.countsState = stateKey;
    }
    const key = `${game}|${updatedSince}`;
    let count = this.sinceCounts.get(key);
    if (count === undefined) {
      const min = this.since.min.get(game)?.m ?? null;
      count = min !== null && updatedSince <= min ? all : this.since.count.get(game, updatedSince)!.n;
      if (this.sinceCounts.size >= 1000) this.sinceCounts.clear(); // bounded: distinct filters are few
      this.sinceCounts.set(key, count);
    }
    return count;
  }

  /** A deck of any visibility, with its entries in import order, or null. */
  getDeck(id: string): StoredDeck | null {
    const deckId = normalizeDeckId(id);
    if (!deckId) return null;
    const cache = this.cache.fresh();
    let deck = cache.get(deckId);
    if (deck === undefined) {
      const row = this.statements.deckById.get(deckId);
      deck = row ? toDeck(row, this.statements.cardsOfDeck.all(row.seq).map(toEntry)) : null;
      cache.set(deckId, deck);
    }
    return deck;
  }

  /**
   * The public decks among `ids` (any order; malformed, private and missing ids are simply not
   * returned). The decks not kept already are read in two statements, whatever their number.
   */
  getPublicDecks(ids: readonly string[]): StoredDeck[] {
    const cache = this.cache.fresh();
    const found: StoredDeck[] = [];
    const missing: string[] = [];
    for (const id of new Set(ids.map(normalizeDeckId).filter((id): id is string => id !== null))) {
      const deck = cache.get(id);
      if (deck === undefined) missing.push(id);
      else if (deck) found.push(deck);
    }
    if (missing.length > 0) {
      const rows = this.statements.decksByIds.all(JSON.stringify(missing));
      const cards = new Map<number, StoredCardEntry[]>(rows.map((row) => [row.seq, []]));
      if (rows.length > 0) {
        for (const card of this.statements.cardsOfDecks.all(JSON.stringify(rows.map((row) => row.seq)))) cards.get(card.deck_seq)!.push(toEntry(card));
      }
      const read = new Map(rows.map((row) => [row.id, toDeck(row, cards.get(row.seq)!)]));
      for (const id of missing) {
        const deck = read.get(id) ?? null;
        cache.set(id, deck);
        if (deck) found.push(deck);
      }
    }
    return found.filter((deck) => deck.visibility === 'public');
  }

  /**
   * Whether `token` opens deck `deckId` now: a share token that has not expired, or a pd_ private
   * link, issued for that deck. Tokens are looked up by hash, like API keys.
   */
  resolveToken(deckId: string, token: string, now: number = this.now()): boolean {
    if (!SHARE_TOKEN_PATTERN.test(token) && !PRIVATE_LINK_PATTERN.test(token)) return false;
    const row = this.tokenLookup(hashSecret(token));
    if (!row || row.deck_id !== normalizeDeckId(deckId)) return false;
    return row.expires_at === null || now < row.expires_at;
  }

  /** A new share token for the deck, valid `ttlSeconds` (at most 24 hours); null when there is no such deck. */
  createShareToken(deckId: string, ttlSeconds: number = MAX_SHARE_TTL_SECONDS): string | null {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_SHARE_TTL_SECONDS) {
      throw new RangeError(`ttl must be a whole number of seconds from 1 to ${MAX_SHARE_TTL_SECONDS}`);
    }
    const now = this.now();
    return this.db.transaction(() => {
      const seq = this.seqOf(deckId);
      if (seq === null) return null;
      this.statements.pruneTokens.run(now); // expired share tokens are useless; keep the table small
      const token = `st_${randomBytes(16).toString('hex')}`;
      this.statements.insertToken.run(hashSecret(token), seq, 'share', now, now + ttlSeconds * 1000);
      return token;
    })();
  }

  /** A new non-expiring `pd_` private link for the deck; null when there is no such deck. */
  createPrivateLink(deckId: string): string | null {
    const seq = this.seqOf(deckId);
    if (seq === null) return null;
    const token = `pd_${randomBytes(16).toString('hex')}`;
    this.statements.insertToken.run(hashSecret(token), seq, 'private', this.now(), null);
    return token;
  }

  /** Revokes every share token and private link of a deck; returns how many there were. */
  revokeTokens(deckId: string): number {
    const seq = this.seqOf(deckId);
    return seq === null ? 0 : this.statements.deleteTokens.run(seq).changes;
  }

  private seqOf(deckId: string): number | null {
    const id = normalizeDeckId(deckId);
    return id ? (this.statements.seqOf.get(id)?.seq ?? null) : null;
  }
}

/** Deck ids are stored in lower case; anything that is not a UUID v4 names no deck. */
export function normalizeDeckId(id: string): string | null {
  const lower = id.toLowerCase();
  return LOWER_CASE_UUID_V4.test(lower) ? lower : null;
}

function toEntry(row: CardRow): StoredCardEntry {
  return { cardId: row.card_id, quantity: row.quantity, zoneId: row.zone_id };
}

function toDeck(row: DeckRow, cards: StoredCardEntry[]): StoredDeck {
  return {
    id: row.id,
    gameId: row.game_id as GameSlug,
    name: row.name,
    ownerDisplayName: row.owner_display_name,
    visibility: row.visibility as Visibility,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    copyCount: row.copy_count,
    viewCount: row.view_count,
    likeCount: row.like_count,
    cards,
  };
}
