import type { DeckSort } from '@snapdeck/contract';
import type { Db } from '../db/database.ts';

/**
 * The prepared statements of the public listings (store.ts): one pair per sort, descending, and
 * the updatedSince walk with its counts. Each names its index with INDEXED BY, so a planner change
 * can never silently turn a page into a table scan plus sort; store.test.ts checks their plans.
 */

const SORT_COLUMNS: Record<DeckSort, { column: string; index: string }> = {
  updatedAt: { column: 'updated_at', index: 'decks_public_updated' },
  createdAt: { column: 'created_at', index: 'decks_public_created' },
  copyCount: { column: 'copy_count', index: 'decks_public_copies' },
  viewCount: { column: 'view_count', index: 'decks_public_views' },
  likeCount: { column: 'like_count', index: 'decks_public_likes' },
};

export interface SummaryRow {
  id: string;
  game_id: string;
  created_at: number;
  updated_at: number;
  v: number;
}

export function listingStatements(db: Db, sort: DeckSort) {
  const { column, index } = SORT_COLUMNS[sort];
  const select = `SELECT id, game_id, created_at, updated_at, ${column} AS v FROM decks INDEXED BY ${index} WHERE visibility = 'public' AND game_id = ?`;
  type P2 = [string, number];
  type P4 = [string, number, string, number];
  return {
    descFirst: db.prepare<P2, SummaryRow>(`${select} ORDER BY ${column} DESC, id DESC LIMIT ?`),
    // Row-value comparison: SQLite turns it into one index range bound on (column, id).
    descAfter: db.prepare<P4, SummaryRow>(`${select} AND (${column}, id) < (?, ?) ORDER BY ${column} DESC, id DESC LIMIT ?`),
  };
}

export function sinceStatements(db: Db) {
  const select = `SELECT id, game_id, created_at, updated_at, updated_at AS v FROM decks INDEXED BY decks_public_updated WHERE visibility = 'public' AND game_id = ? AND updated_at >= ?`;
  return {
    ascFirst: db.prepare<[string, number, number], SummaryRow>(`${select} ORDER BY updated_at ASC, id ASC LIMIT ?`),
    // No `updated_at >= ?` here: a position of this walk is never before its filter, and with both
    // terms SQLite bounds the range by the filter alone, reading every deck before the position.
    ascAfter: db.prepare<[string, number, string, number], SummaryRow>(
      `SELECT id, game_id, created_at, updated_at, updated_at AS v FROM decks INDEXED BY decks_public_updated WHERE visibility = 'public' AND game_id = ? AND (updated_at, id) > (?, ?) ORDER BY updated_at ASC, id ASC LIMIT ?`,
    ),
    count: db.prepare<[string, number], { n: number }>(
      `SELECT COUNT(*) AS n FROM decks INDEXED BY decks_public_updated WHERE visibility = 'public' AND game_id = ? AND updated_at >= ?`,
    ),
    min: db.prepare<[string], { m: number | null }>(
      `SELECT MIN(updated_at) AS m FROM decks INDEXED BY decks_public_updated WHERE visibility = 'public' AND game_id = ?`,
    ),
  };
}

export type ListingStatements = ReturnType<typeof listingStatements>;
