import { DECK_SORTS, type DeckSort, type DeckSummary, type GameSlug } from '@snapdeck/contract';
import type { Db } from '../db/database.ts';
import type { KeptDecks } from './kept-decks.ts';
import { listingStatements, sinceStatements, type ListingStatements, type SummaryRow } from './listing-statements.ts';
import { toIso } from './timestamps.ts';
import type { DeckPosition } from './types.ts';

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

/**
 * The public listings of DeckStore (GET /v1/decks/public).
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
 *   the following pages of a walk until the database changes (the kept decks' check says when).
 */
export class PublicListing {
  private readonly listing: Record<DeckSort, ListingStatements>;
  private readonly since: ReturnType<typeof sinceStatements>;
  private readonly publicCount;
  /** updatedSince counts reused across the pages of a walk; dropped when the database changes. */
  private readonly sinceCounts = new Map<string, number>();
  private countsGeneration = -1;

  /** `kept`: the store's kept decks, whose check says when the database changed. */
  constructor(db: Db, private readonly kept: KeptDecks) {
    this.listing = Object.fromEntries(DECK_SORTS.map((sort) => [sort, listingStatements(db, sort)])) as Record<DeckSort, ListingStatements>;
    this.since = sinceStatements(db);
    this.publicCount = db.prepare<[string], { count: number }>('SELECT count FROM deck_public_counts WHERE game_id = ?');
  }

  /** One keyset page of a game's public decks (decisions.md "Decks" for the order). */
  page(query: ListPublicQuery): ListPublicPage {
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
    const all = this.publicCount.get(game)?.count ?? 0;
    if (updatedSince === null || all === 0) return all;
    const { generation } = this.kept.fresh();
    if (generation !== this.countsGeneration) {
      this.sinceCounts.clear();
      this.countsGeneration = generation;
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
}
