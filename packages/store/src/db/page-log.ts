import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FileStamp } from './file-stamp.ts';

/**
 * The writer's record of the decks part it last published and of what changed since
 * (published/decks-publish.ts; docs/contributors/store-format.md, "How the writer finds its
 * changed pages"). A small SQLite file, `<db>.store-decks/<page root>.db`, holding:
 *
 * - the *baseline*: the page root, page size and page count of the published file, the page hashes
 *   (SHA-256 of every page, 64 to a row) and the writer-only pages (their b-trees' pages, published
 *   emptied); and, while a publish is under way, the *pending* baseline (its changed hashes only);
 * - per baseline, the *dirty* pages: every page the database wrote since that baseline's snapshot,
 *   as read from its WAL before any checkpoint could take the frames away;
 * - the *position*: how far into the WAL those were read (wal-follow.ts), or why it is lost.
 *
 * Every change is made while the writer database's write lock is held, so processes take turns.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS page_log_baseline (
    slot INTEGER PRIMARY KEY CHECK (slot IN (0, 1)), root TEXT NOT NULL, page_size INTEGER NOT NULL,
    page_count INTEGER NOT NULL, writer_only BLOB NOT NULL, lost TEXT
  );
  CREATE TABLE IF NOT EXISTS page_log_hashes (chunk INTEGER PRIMARY KEY, hashes BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS page_log_pending_chunks (chunk INTEGER PRIMARY KEY, hashes BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS page_log_pending_hashes (page INTEGER PRIMARY KEY, hash BLOB NOT NULL);
  CREATE TABLE IF NOT EXISTS page_log_dirty (slot INTEGER NOT NULL, page INTEGER NOT NULL, PRIMARY KEY (slot, page)) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS page_log_position (id INTEGER PRIMARY KEY CHECK (id = 1), anchor TEXT);
`;
const HASH = 32;
/** Page hashes per row: a row is rewritten when one of its pages changes (2 KiB each). */
const CHUNK = 64;

/** Where the WAL was last read to (wal-follow.ts). */
export interface WalAnchor {
  salt1: number;
  salt2: number;
  /** Frames 1..frame of that generation are accounted for. */
  frame: number;
  cksum1: number;
  cksum2: number;
  /** Every one of those frames was in the database file when the stamp was taken. */
  stamp: FileStamp | null;
}

export interface Baseline {
  root: string;
  pageSize: number;
  pageCount: number;
  /** Pages of writer-only b-trees (roots included), ascending. */
  writerOnly: Uint32Array;
  /** Why the pages changed since this baseline can no longer be known (null: they are). */
  lost: string | null;
}

export const CURRENT = 0;
export const PENDING = 1;
type Slot = typeof CURRENT | typeof PENDING;

const u32s = (blob: Buffer) => new Uint32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.length));
const blobOf = (values: Uint32Array) => Buffer.from(values.buffer, values.byteOffset, values.byteLength);

export class PageLog {
  private constructor(private db: Database.Database, private file: string) {}

  /** The record in `dir`, or null. A file there that is not one (a copy kept by an older writer) is removed. */
  static open(dir: string): PageLog | null {
    if (!existsSync(dir)) return null;
    const found: PageLog[] = [];
    for (const name of readdirSync(dir)) {
      // A journal beside a record is SQLite's own (a hot one rolls an interrupted change back).
      if (name.endsWith('-journal') || name.startsWith('.')) continue;
      const file = join(dir, name);
      let db: Database.Database | null = null;
      try {
        if (name.endsWith('.db')) db = new Database(file);
        if (db && db.prepare<[], number>("SELECT COUNT(*) FROM sqlite_schema WHERE name = 'page_log_position'").pluck().get()! > 0) {
          db.pragma('synchronous = FULL');
          found.push(new PageLog(db, file));
          continue;
        }
      } catch {
        // not a record: removed below
      }
      db?.close();
      rmSync(file, { force: true });
      rmSync(`${file}-journal`, { force: true });
    }
    if (found.length === 1) return found[0]!;
    for (const log of found) log.remove();
    return null;
  }

  /** A new, empty record in `dir` (any other removed). */
  static create(dir: string): PageLog {
    PageLog.open(dir)?.remove();
    const file = join(dir, 'new.db');
    rmSync(file, { force: true });
    const db = new Database(file);
    db.pragma('journal_mode = DELETE');
    db.pragma('synchronous = FULL');
    db.exec(SCHEMA);
    db.prepare('INSERT INTO page_log_position (id, anchor) VALUES (1, NULL)').run();
    return new PageLog(db, file);
  }

  close(): void {
    this.db.close();
  }

  remove(): void {
    this.db.close();
    rmSync(this.file, { force: true });
  }

  baseline(slot: Slot): Baseline | null {
    const row = this.db.prepare<[number], { root: string; page_size: number; page_count: number; writer_only: Buffer; lost: string | null }>('SELECT * FROM page_log_baseline WHERE slot = ?').get(slot);
    return row ? { root: row.root, pageSize: row.page_size, pageCount: row.page_count, writerOnly: u32s(row.writer_only), lost: row.lost } : null;
  }

  /** The current baseline's page hashes (32 bytes a page). */
  hashes(pageCount: number): Buffer {
    const out = Buffer.alloc(pageCount * HASH);
    for (const row of this.db.prepare<[], [number, Buffer]>('SELECT chunk, hashes FROM page_log_hashes').raw().iterate()) {
      if (row[0] * CHUNK < pageCount) row[1].copy(out, row[0] * CHUNK * HASH);
    }
    return out;
  }

  dirty(slot: Slot): Uint32Array {
    return Uint32Array.from(this.db.prepare<[number], number>('SELECT page FROM page_log_dirty WHERE slot = ?').pluck().all(slot));
  }

  anchor(): WalAnchor | null {
    const anchor = this.db.prepare<[], string | null>('SELECT anchor FROM page_log_position WHERE id = 1').pluck().get();
    return anchor ? (JSON.parse(anchor) as WalAnchor) : null;
  }

  /** Pages read from the WAL since the anchor: dirty for every baseline held; the new anchor. */
  advance(pages: Iterable<number>, anchor: WalAnchor): void {
    const add = this.db.prepare('INSERT OR IGNORE INTO page_log_dirty (slot, page) VALUES (?, ?)');
    const slots = this.db.prepare<[], number>('SELECT slot FROM page_log_baseline').pluck().all();
    this.db.transaction(() => {
      for (const page of pages) for (const slot of slots) add.run(slot, page);
      this.db.prepare('UPDATE page_log_position SET anchor = ? WHERE id = 1').run(JSON.stringify(anchor));
    })();
  }

  /** What changed since can no longer be known: the next publish compares every page. */
  lose(reason: string, anchor: WalAnchor | null): void {
    this.db.transaction(() => {
      this.db.exec('DELETE FROM page_log_dirty');
      this.db.prepare('UPDATE page_log_baseline SET lost = coalesce(lost, ?)').run(reason);
      this.db.prepare('UPDATE page_log_position SET anchor = ? WHERE id = 1').run(anchor ? JSON.stringify(anchor) : null);
    })();
  }

  /**
   * Records the baseline a publish is about to make current: its changed page hashes (every page
   * past `changedFrom` too), nothing dirty since its snapshot, and the anchor at that snapshot.
   */
  setPending(baseline: Omit<Baseline, 'lost'>, hashes: Map<number, Buffer> | Buffer, anchor: WalAnchor): void {
    this.db.transaction(() => {
      this.dropPending();
      this.db.prepare('INSERT INTO page_log_baseline (slot, root, page_size, page_count, writer_only) VALUES (1, ?, ?, ?, ?)').run(baseline.root, baseline.pageSize, baseline.pageCount, blobOf(baseline.writerOnly));
      if (Buffer.isBuffer(hashes)) {
        const put = this.db.prepare('INSERT INTO page_log_pending_chunks (chunk, hashes) VALUES (?, ?)');
        for (let chunk = 0; chunk * CHUNK * HASH < hashes.length; chunk++) put.run(chunk, hashes.subarray(chunk * CHUNK * HASH, (chunk + 1) * CHUNK * HASH));
      } else {
        const put = this.db.prepare('INSERT INTO page_log_pending_hashes (page, hash) VALUES (?, ?)');
        for (const [page, hash] of hashes) put.run(page, hash);
      }
      this.db.prepare('UPDATE page_log_position SET anchor = ? WHERE id = 1').run(JSON.stringify(anchor));
    })();
  }

  /** The pending baseline becomes the current one (its pointer moved); the file is renamed after it. */
  promote(dir: string): void {
    const pending = this.baseline(PENDING);
    if (!pending) return;
    const current = this.baseline(CURRENT);
    const count = pending.pageCount;
    this.db.transaction(() => {
      if (this.db.prepare<[], number>('SELECT COUNT(*) FROM page_log_pending_chunks').pluck().get()! > 0) {
        this.db.exec('DELETE FROM page_log_hashes; INSERT INTO page_log_hashes (chunk, hashes) SELECT chunk, hashes FROM page_log_pending_chunks; DELETE FROM page_log_pending_chunks');
      }
      const rows = new Map<number, Buffer>();
      const chunkOf = this.db.prepare<[number], Buffer>('SELECT hashes FROM page_log_hashes WHERE chunk = ?').pluck();
      for (const [page, hash] of this.db.prepare<[], [number, Buffer]>('SELECT page, hash FROM page_log_pending_hashes').raw().iterate()) {
        const chunk = Math.floor(page / CHUNK);
        let row = rows.get(chunk);
        if (!row) {
          row = Buffer.alloc(CHUNK * HASH);
          if (current) chunkOf.get(chunk)?.copy(row);
          rows.set(chunk, row);
        }
        hash.copy(row, (page % CHUNK) * HASH);
      }
      const put = this.db.prepare('INSERT OR REPLACE INTO page_log_hashes (chunk, hashes) VALUES (?, ?)');
      for (const [chunk, row] of rows) put.run(chunk, row);
      this.db.prepare('DELETE FROM page_log_hashes WHERE chunk >= ?').run(Math.ceil(count / CHUNK));
      this.db.exec(`DELETE FROM page_log_pending_hashes; DELETE FROM page_log_baseline WHERE slot = 0; UPDATE page_log_baseline SET slot = 0 WHERE slot = 1;
        DELETE FROM page_log_dirty WHERE slot = 0; UPDATE page_log_dirty SET slot = 0 WHERE slot = 1`);
    })();
    const named = join(dir, `${pending.root}.db`);
    if (named !== this.file) {
      // SQLite refuses to write a file renamed under an open connection: closed, renamed, reopened.
      this.db.close();
      renameSync(this.file, named);
      this.file = named;
      this.db = new Database(named);
      this.db.pragma('synchronous = FULL');
    }
  }

  /** Drops a pending baseline that never became current (its publish failed before the pointer moved). */
  dropPending(): void {
    this.db.exec('DELETE FROM page_log_pending_hashes; DELETE FROM page_log_pending_chunks; DELETE FROM page_log_dirty WHERE slot = 1; DELETE FROM page_log_baseline WHERE slot = 1');
  }
}
