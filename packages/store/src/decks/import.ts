import { OperatorError } from '@snapdeck/contract';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/database.ts';
import { shortenSecrets } from '../keys/secrets.ts';
import { parseDeckLine, type ParsedLine } from './import-line.ts';
import { noteDeckWrite } from './kept-decks.ts';
import { deckChangesHead, dropTransientRemovals } from './changes.ts';

/**
 * Deck import (decisions.md "Operator interface", "Deck import line"): JSON Lines, one deck per
 * line, upserted by id; `{"id": ..., "deleted": true}` removes a deck with its cards and tokens.
 *
 * All or nothing: the whole file is one transaction, and the first bad line aborts it with its
 * line number and reason, leaving the database exactly as it was. Lines are validated as they are
 * read and written in batches, so memory stays flat however large the file is.
 *
 * Choices beyond the contract (documented here and tested in import.test.ts):
 * - ids are UUID v4 in any case, stored in lower case; a deck id appearing twice is upserted
 *   twice (the later line wins), a delete of an unknown id is counted as `notFound`, not an error;
 * - timestamps need an explicit zone (`Z` or `±hh:mm`), are kept to the millisecond in UTC, and
 *   updatedAt may not be earlier than createdAt;
 * - name 1–200 and ownerDisplayName 1–100 characters (untrusted text, stored as given), each one
 *   line: no control character (the class of decisions.md "Cards");
 * - cards may be empty (a deck being built), at most 1000 entries, quantity 1–999;
 * - zoneId is optional (null counts as absent); when present it is a lowercase dash-separated
 *   word like `digi-egg`, at most 64 characters, because it is printed as a header in text
 *   exports, where a newline or `//` inside it would forge lines;
 * - unknown members are rejected, so a misspelt `copycount` cannot silently default to 0;
 * - blank lines are skipped (a trailing newline is not a deck).
 */

export type ImportSource = Iterable<string> | AsyncIterable<string>;

export interface ImportResult {
  upserted: number;
  deleted: number;
  /** Delete lines naming a deck that does not exist. */
  notFound: number;
  /** Lines read, blank ones included. */
  lines: number;
  elapsedMs: number;
}

export class DeckImportError extends OperatorError {
  /** Why the line was refused; a secret-looking value it quotes (a member named `pd_…`) is cut short. */
  readonly reason: string;

  constructor(
    readonly line: number,
    reason: string,
  ) {
    const shown = shortenSecrets(reason);
    super(`line ${line}: ${shown}`);
    this.reason = shown;
  }
}

/** Lines validated before a batch is written; big enough to amortise, small enough to stay flat. */
const BATCH = 2000;
/** Card entries per INSERT statement: one call per deck for most decks, far fewer native calls. */
const ROWS_PER_INSERT = 64;
/**
 * Bulk mode: once an import has written this many decks, and at least a fifth of the decks the
 * table held before, the listing indexes (decks_public_*) are dropped and rebuilt at the end (still inside the
 * transaction, so readers never see them missing). Building an index from sorted data is several
 * times cheaper than maintaining it through a million random inserts; for a small import into a
 * big table, rebuilding would cost more than it saves.
 */
export const BULK_MIN_DECKS = 50_000;

function writer(db: Db, bulkMinDecks: number, onChange: ((deckId: string) => void) | undefined) {
  const upsertDeck = db.prepare<unknown[], { seq: number }>(`
    INSERT INTO decks (id, game_id, name, owner_display_name, visibility, created_at, updated_at, copy_count, view_count, like_count)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET
      game_id = excluded.game_id, name = excluded.name, owner_display_name = excluded.owner_display_name,
      visibility = excluded.visibility, created_at = excluded.created_at, updated_at = excluded.updated_at,
      copy_count = excluded.copy_count, view_count = excluded.view_count, like_count = excluded.like_count
    RETURNING seq`);
  const deleteCards = db.prepare<[number]>('DELETE FROM deck_cards WHERE deck_seq = ?');
  const seqOf = db.prepare<[string], { seq: number }>('SELECT seq FROM decks WHERE id = ?');
  const deleteTokens = db.prepare<[number]>('DELETE FROM deck_tokens WHERE deck_seq = ?');
  const deleteDeck = db.prepare<[number]>('DELETE FROM decks WHERE seq = ?');
  const stats = db.prepare<[], { m: number | null; n: number }>('SELECT MAX(seq) AS m, COUNT(*) AS n FROM decks');
  const listingIndexes = db.prepare<[], { name: string; sql: string }>(
    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'decks' AND name LIKE 'decks_public_%' AND sql IS NOT NULL",
  );

  const inserts = new Map<number, Statement>();
  const insertCards = (rows: number): Statement => {
    let statement = inserts.get(rows);
    if (!statement) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ');
      statement = db.prepare(`INSERT INTO deck_cards (deck_seq, position, card_id, quantity, zone_id) VALUES ${values}`);
      inserts.set(rows, statement);
    }
    return statement;
  };

  // Decks created by this import have no cards to delete: skipping that b-tree seek matters when
  // most decks are new. `touched` catches a new deck upserted a second time by the same file.
  let firstNewSeq = Infinity;
  let decksBefore = 0;
  let written = 0;
  const touched = new Set<number>();
  let dropped: { name: string; sql: string }[] = [];
  /** The deck change feed's last number before this import (changes.ts). */
  let changesBefore: number | null = null;

  function maybeEnterBulkMode(): void {
    if (dropped.length > 0 || written < bulkMinDecks || written < decksBefore / 5) return;
    dropped = listingIndexes.all();
    for (const index of dropped) db.exec(`DROP INDEX ${index.name}`);
  }

  return {
    begin() {
      const row = stats.get()!;
      firstNewSeq = (row.m ?? 0) + 1;
      decksBefore = row.n;
      written = 0;
      touched.clear();
      dropped = [];
      changesBefore = deckChangesHead(db);
    },
    write(line: ParsedLine): 'upserted' | 'deleted' | 'notFound' {
      written += 1;
      if (line.kind === 'delete') {
        const row = seqOf.get(line.id);
        if (!row) return 'notFound';
        // Explicit child deletes: correct even on a connection opened without foreign_keys.
        deleteCards.run(row.seq);
        deleteTokens.run(row.seq);
        deleteDeck.run(row.seq);
        touched.delete(row.seq);
        onChange?.(line.id);
        return 'deleted';
      }
      const d = line.deck;
      const { seq } = upsertDeck.get(d.id, d.gameId, d.name, d.ownerDisplayName, d.visibility, d.createdAt, d.updatedAt, d.copyCount, d.viewCount, d.likeCount)!;
      if (seq < firstNewSeq || touched.has(seq)) deleteCards.run(seq);
      else touched.add(seq);
      onChange?.(d.id);
      for (let from = 0; from < d.cards.length; from += ROWS_PER_INSERT) {
        const chunk = d.cards.slice(from, from + ROWS_PER_INSERT);
        const params: unknown[] = [];
        chunk.forEach((card, i) => params.push(seq, from + i, card.cardId, card.quantity, card.zoneId ?? null));
        insertCards(chunk.length).run(...params);
      }
      return 'upserted';
    },
    /** Called between batches. */
    checkpoint() {
      maybeEnterBulkMode();
    },
    /** Rebuilds what bulk mode dropped; must run before COMMIT. */
    finish() {
      for (const index of dropped) db.exec(index.sql);
      dropped = [];
      dropTransientRemovals(db, changesBefore);
    },
  };
}

export interface ImportOptions {
  /** Decks written before bulk mode may start (tests lower it). Default BULK_MIN_DECKS. */
  bulkMinDecks?: number;
  /**
   * Called with the id of every deck the import upserts or deletes (`decks import --purge` names
   * them to the cache). Called inside the transaction: the import may still fail and roll back.
   */
  onChange?: (deckId: string) => void;
}

/**
 * Imports JSON Lines (strings without their newline) into the deck tables, in one transaction.
 * Throws DeckImportError naming the first bad line; the database is then unchanged.
 * The connection is used exclusively until the promise settles. Readers on other connections
 * keep reading the previous state (WAL) until the commit; other writers wait for it.
 */
export async function importDecks(db: Db, lines: ImportSource, options: ImportOptions = {}): Promise<ImportResult> {
  if (db.inTransaction) throw new Error('importDecks needs a connection that is not already in a transaction');
  const started = performance.now();
  const result: ImportResult = { upserted: 0, deleted: 0, notFound: 0, lines: 0, elapsedMs: 0 };
  const write = writer(db, options.bulkMinDecks ?? BULK_MIN_DECKS, options.onChange);
  const batch: ParsedLine[] = [];
  const flush = () => {
    for (const line of batch) result[write.write(line)] += 1;
    batch.length = 0;
    write.checkpoint();
  };
  // Connection settings for the load, restored afterwards:
  // - a 256 MB page cache: random uuid keys and five listing indexes touch many pages, which the
  //   default 2 MB would re-read from the OS on every insert;
  // - statement journals in memory: every upsert and multi-row insert inside the big transaction
  //   keeps one, and on disk that was millions of small writes (most of the import's system time).
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  const tempStore = db.pragma('temp_store', { simple: true }) as number;
  db.pragma('cache_size = -262144');
  db.pragma('temp_store = MEMORY');
  try {
    db.exec('BEGIN IMMEDIATE');
    write.begin();
    for await (const raw of lines) {
      result.lines += 1;
      const text = raw.trim();
      if (text === '') continue;
      try {
        batch.push(parseDeckLine(text));
      } catch (error) {
        throw new DeckImportError(result.lines, (error as Error).message);
      }
      if (batch.length >= BATCH) flush();
    }
    flush();
    write.finish();
    db.exec('COMMIT');
    noteDeckWrite(db);
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  } finally {
    db.pragma(`cache_size = ${cacheSize}`);
    db.pragma(`temp_store = ${tempStore}`);
  }
  result.elapsedMs = performance.now() - started;
  return result;
}
