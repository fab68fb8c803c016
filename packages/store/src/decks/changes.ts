import { randomBytes } from 'node:crypto';
import type { DeckChange, DeckChangesPage, GameSlug } from '@snapdeck/contract';
import type { Db } from '../db/database.ts';
import { decodeDeckChangesCursor, encodeDeckChangesCursor } from './changes-cursor.ts';
import { DECK_CHANGES_EPOCH } from './changes-schema.ts';
import { toIso } from './timestamps.ts';

/**
 * GET /v1/decks/changes (decisions.md "Deck changes"), read from the tables changes-schema.ts
 * describes: a game's public decks by change number (upserts) merged with its removals, after a
 * cursor, each deck at most once a page (its latest change in the page).
 *
 * Every page is two index range reads of at most limit + 1 rows (decks_public_changes and
 * deck_removals_game, both covering): its cost does not grow with the number of decks.
 */

export type DeckChangesResult =
  | { ok: true; page: DeckChangesPage }
  | { ok: false; error: 'invalidCursor' | 'cursorGone' };

interface UpsertRow {
  s: number;
  id: string;
  updated_at: number;
}
interface RemovalRow {
  s: number;
  id: string;
}
interface LogRow {
  head: number;
  pruned_through: number;
  epoch: string | null;
}

/** Statements per database (a gateway's view opens a part once and keeps it until replaced). */
const feeds = new WeakMap<Db, DeckChangeFeed>();

export class DeckChangeFeed {
  /** Null for a database written before the feed existed (a store published by an older writer). */
  private readonly statements;

  static of(db: Db): DeckChangeFeed {
    let feed = feeds.get(db);
    if (!feed) feeds.set(db, (feed = new DeckChangeFeed(db)));
    return feed;
  }

  private constructor(db: Db) {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'deck_change_log'").get() !== undefined;
    this.statements = exists
      ? {
          upserts: db.prepare<[string, number, number], UpsertRow>(
            "SELECT change_seq AS s, id, updated_at FROM decks INDEXED BY decks_public_changes WHERE visibility = 'public' AND game_id = ? AND change_seq > ? ORDER BY change_seq LIMIT ?",
          ),
          removals: db.prepare<[string, number, number], RemovalRow>(
            'SELECT seq AS s, deck_id AS id FROM deck_removals INDEXED BY deck_removals_game WHERE game_id = ? AND seq > ? ORDER BY seq LIMIT ?',
          ),
          log: db.prepare<[string], LogRow>('SELECT head, pruned_through, (SELECT value FROM settings WHERE name = ?) AS epoch FROM deck_change_log'),
        }
      : null;
  }

  /**
   * An older writer's store has recorded nothing: epoch "0", head 0, and every page empty; its
   * cursors answer 410 once the writer is upgraded (the migration draws a random epoch).
   */
  private state(): LogRow {
    return this.statements?.log.get(DECK_CHANGES_EPOCH) ?? { head: 0, pruned_through: 0, epoch: null };
  }

  /**
   * One page of `game`'s changes after `since` (a cursor of this feed), or the cursor of "now"
   * when `since` is undefined. `limit` is already clamped (1..1000). `key` seals cursors.
   */
  page(key: Uint8Array, game: GameSlug, since: string | undefined, limit: number): DeckChangesResult {
    const { head, pruned_through: prunedThrough, epoch: stored } = this.state();
    const epoch = stored ?? '0';
    const cursorAt = (position: number, watermark: number) => encodeDeckChangesCursor(key, { game, epoch, position, watermark });
    if (since === undefined) return { ok: true, page: { changes: [], cursor: cursorAt(head, head), hasMore: false } };
    const from = decodeDeckChangesCursor(key, since, game);
    if (!from) return { ok: false, error: 'invalidCursor' };
    if (from.epoch !== epoch || from.position < prunedThrough) return { ok: false, error: 'cursorGone' };
    // This gateway serves a version older than the one that issued the cursor: nothing yet, more
    // to come (the version the cursor came from has changes this one does not know).
    if (head < from.watermark) return { ok: true, page: { changes: [], cursor: since, hasMore: true } };
    if (!this.statements) return { ok: true, page: { changes: [], cursor: since, hasMore: false } };
    return { ok: true, page: this.after(game, from.position, limit, head, cursorAt) };
  }

  private after(game: GameSlug, position: number, limit: number, head: number, cursorAt: (position: number, watermark: number) => string): DeckChangesPage {
    const ups = this.statements!.upserts.all(game, position, limit + 1);
    const gone = this.statements!.removals.all(game, position, limit + 1);
    // Merge by change number; the page ends after `limit` entries.
    const taken: Array<{ s: number; change: DeckChange }> = [];
    let u = 0;
    let r = 0;
    while (taken.length < limit && (u < ups.length || r < gone.length)) {
      const up = ups[u];
      const rm = gone[r];
      if (up && (!rm || up.s <= rm.s)) {
        taken.push({ s: up.s, change: { id: up.id, change: 'upsert', updatedAt: toIso(up.updated_at) } });
        u += 1;
      } else {
        taken.push({ s: rm!.s, change: { id: rm!.id, change: 'removed' } });
        r += 1;
      }
    }
    const hasMore = u < ups.length || r < gone.length;
    // Each deck once: its latest change in the page (an earlier removal of a deck public again,
    // or a deck removed twice).
    const seen = new Set<string>();
    const changes: DeckChange[] = [];
    for (let i = taken.length - 1; i >= 0; i--) {
      const { change } = taken[i]!;
      if (seen.has(change.id)) continue;
      seen.add(change.id);
      changes.push(change);
    }
    changes.reverse();
    const last = hasMore ? taken[taken.length - 1]!.s : Math.max(position, head);
    return { changes, cursor: cursorAt(last, Math.max(head, last)), hasMore };
  }
}

/**
 * The commit-order number of the last change (an import notes it before writing:
 * dropTransientRemovals); null for a database without the feed (opened with older migrations).
 */
export function deckChangesHead(db: Db): number | null {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'deck_change_log'").get() !== undefined;
  return exists ? (db.prepare<[], number>('SELECT head FROM deck_change_log').pluck().get() ?? 0) : null;
}

/**
 * Inside an import's transaction, before it commits: drops the removals of decks that were not
 * public before the import began (made public, then private, deleted or moved, by lines of the
 * same file). Nobody could have seen them public: they are not in the feed (decisions.md: an
 * import that leaves a deck private is not).
 */
export function dropTransientRemovals(db: Db, headBefore: number | null): void {
  if (headBefore === null) return;
  db.prepare('DELETE FROM deck_removals WHERE seq > ? AND public_seq > ?').run(headBefore, headBefore);
}

export interface PruneResult {
  /** Removals pruned. */
  removed: number;
  /** The newest removal pruned so far: cursors before it answer 410. */
  prunedThrough: number;
}

/**
 * Drops the removals older than `keepDays` days (`--keep-deck-changes-days` of the writer
 * commands). Everything up to the newest such removal goes, so the feed stays a suffix of the
 * commit order and one number says which cursors can no longer be followed.
 */
export function pruneDeckChanges(db: Db, keepDays: number, now: number = Date.now()): PruneResult {
  if (!Number.isInteger(keepDays) || keepDays < 0) throw new RangeError('keepDays must be a whole number of days (0 or more)');
  return db.transaction(() => {
    const newest = db.prepare<[number], { m: number | null }>('SELECT MAX(seq) AS m FROM deck_removals WHERE removed_at < ?').get(now - keepDays * 86_400_000)!.m;
    let removed = 0;
    if (newest !== null) {
      removed = db.prepare('DELETE FROM deck_removals WHERE seq <= ?').run(newest).changes;
      db.prepare('UPDATE deck_change_log SET pruned_through = MAX(pruned_through, ?)').run(newest);
      // The decks part changed: the next publish sends it (the generation triggers watch the decks table only).
      db.prepare("UPDATE store_generations SET generation = generation + 1 WHERE part = 'decks'").run();
    }
    const prunedThrough = db.prepare<[], { p: number }>('SELECT pruned_through AS p FROM deck_change_log').get()!.p;
    return { removed, prunedThrough };
  }).immediate();
}

/**
 * A new epoch for the feed: every cursor issued before answers 410 (enumerate again). For a
 * database restored from an older store version, whose change numbers partners have already
 * passed: numbers taken after the restore would otherwise look already seen.
 */
export function startDeckChangesEpoch(db: Db): void {
  db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(DECK_CHANGES_EPOCH, randomBytes(8).toString('hex'));
}
