import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import Database from 'better-sqlite3';
type Db = Database.Database;
import { outlast, sameStamp, stampOf } from './file-stamp.ts';
import { PageLog, type WalAnchor } from './page-log.ts';
import { WalFormatError, readWalFrames, readWalIndexHeader, type WalFrames, type WalIndexHeader } from './wal.ts';

/**
 * Following the writer database's WAL (docs/contributors/store-format.md, "How the writer finds its
 * changed pages"). SQLite writes every changed page to the WAL as a frame before it reaches the
 * database file, and a frame only goes away when the log restarts, after a checkpoint has copied
 * every frame into the file. So the pages changed since a publish are the frames' pages since its
 * snapshot, provided the frames were read before the log restarted. The page log's *anchor* says
 * how far they were read: a WAL generation (its salts), a frame and that frame's checksum. When the
 * frames are read again (under the write lock, so the log cannot move):
 *
 * - same generation, and the anchor's frame still has its checksum: the frames after it are new;
 * - another generation: nothing was lost only if every frame up to the anchor was already in the
 *   database file when it was stamped, and the file has not been written since (its stamp is the
 *   same: no checkpoint copied anything else into it). Then every frame of the new log is new.
 * - anything else (a checkpoint and restart by another connection, the sqlite3 shell closing last,
 *   a VACUUM checkpointed away, a restored or replaced file): lost, and the next publish compares
 *   every page instead (correct, slower).
 *
 * Connections opened with openDatabase run no automatic checkpoints once the database publishes;
 * the frames are read, then checkpointed (settle), after each publish has moved its pointer
 * (decks-publish.ts) and when a connection closes (advanceOnClose).
 */

export interface WalFilesOf {
  main: string;
  wal: string;
  shm: string;
  dir: string;
}

/** The files of `db` as SQLite named them (null: in memory, or not in WAL mode). */
export function walFilesOf(db: Db): WalFilesOf | null {
  if (db.memory) return null;
  if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return null;
  const main = db.prepare<[], { file: string }>("SELECT file FROM pragma_database_list WHERE name = 'main'").get()?.file;
  if (!main) return null;
  return { main, wal: `${main}-wal`, shm: `${main}-shm`, dir: `${resolve(db.name)}.store-decks` };
}

export interface WalState {
  header: WalIndexHeader;
  frames: WalFrames;
}

/** The WAL as SQLite's readers see it now (the write lock held), checked frame by frame. */
export function readWal(files: WalFilesOf): WalState {
  const header = readWalIndexHeader(files.shm);
  if (!header) throw new WalFormatError('no wal-index header SQLite would use');
  return { header, frames: readWalFrames(files.wal, header) };
}

const anchorAt = (state: WalState): WalAnchor => ({ salt1: state.header.salt1, salt2: state.header.salt2, frame: state.header.mxFrame, cksum1: state.header.cksum1, cksum2: state.header.cksum2, stamp: null });

/**
 * Reads the frames written since the log's anchor into every baseline's dirty pages; or, when
 * that cannot be known, marks the log lost (with the reason, logged by the next publish). Returns
 * the WAL read (null when it could not be).
 */
export function catchUp(log: PageLog, files: WalFilesOf, needFrames = true): WalState | null {
  const anchor = log.anchor();
  let state: WalState;
  try {
    const header = readWalIndexHeader(files.shm);
    // Nothing committed since the anchor (same generation, same last frame and checksum): the
    // frames need not be read again unless the caller reads pages through them.
    if (!needFrames && header && anchor && header.salt1 === anchor.salt1 && header.salt2 === anchor.salt2 && header.mxFrame === anchor.frame && header.cksum1 === anchor.cksum1 && header.cksum2 === anchor.cksum2) {
      return { header, frames: { salt1: header.salt1, salt2: header.salt2, pageSize: header.pageSize, pages: new Uint32Array(0), cksums: new Uint32Array(0) } };
    }
    state = readWal(files);
  } catch (error) {
    log.lose(`the WAL could not be read (${(error as Error).message})`, null);
    return null;
  }
  const { pages, salt1, salt2, cksums } = state.frames;
  if (!anchor) {
    log.lose('no WAL position recorded', anchorAt(state));
    return state;
  }
  let from: number;
  if (anchor.salt1 === salt1 && anchor.salt2 === salt2) {
    const f = anchor.frame;
    if (f > pages.length || (f > 0 && (cksums[2 * f - 2] !== anchor.cksum1 || cksums[2 * f - 1] !== anchor.cksum2))) {
      log.lose(`WAL frame ${f}, read last time, is no longer what it was`, anchorAt(state));
      return state;
    }
    from = f;
  } else if (anchor.stamp && sameStamp(anchor.stamp, stampOf(files.main))) {
    from = 0;
  } else {
    log.lose('the WAL was checkpointed and restarted by a connection that did not record its pages (another process, the sqlite3 shell, a backup tool), or the database file was replaced', anchorAt(state));
    return state;
  }
  log.advance(pages.subarray(from), anchorAt(state));
  return state;
}

/**
 * Copies every frame into the database file (a passive checkpoint from a second connection: this
 * one holds the write lock, so no frame can be added meanwhile) and, if all went in, stamps the
 * file and waits until any later write would change that stamp. The anchor then survives the log
 * restarting (catchUp). Returns the anchor to record. Never throws: it runs after a publish has
 * moved its pointer, and without a stamp the anchor is only less useful (a restart by anyone then
 * costs the next publish a comparison of every page).
 */
export function settle(files: WalFilesOf, state: WalState): WalAnchor {
  const anchor = anchorAt(state);
  let other: Database.Database | null = null;
  try {
    other = new Database(files.main);
    other.pragma('busy_timeout = 0');
    const [result] = other.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
    if (!result || result.busy !== 0 || result.log !== anchor.frame || result.checkpointed !== anchor.frame) return anchor;
  } catch {
    return anchor;
  } finally {
    other?.close();
  }
  try {
    const stamp = stampOf(files.main);
    if (stamp && outlast(stamp, files.dir) && sameStamp(stamp, stampOf(files.main))) anchor.stamp = stamp;
  } catch {
    // no probe file could be written beside the database (full disk, say): no stamp
  }
  return anchor;
}

/**
 * Reads the frames since the log's anchor into it, then checkpoints them into the database file
 * (settle), so the log restarts at the next write and the anchor survives that. Run holding the
 * write lock: after a publish has moved its pointer, and before a connection closes.
 */
export function catchUpAndSettle(log: PageLog, files: WalFilesOf): void {
  const state = catchUp(log, files, false);
  if (state) log.advance([], settle(files, state));
}

/** Runs `work` holding the write lock of `db` (BEGIN IMMEDIATE; rolled back after: it writes nothing). */
export function underWriteLock<T>(db: Db, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    return work();
  } finally {
    db.exec('ROLLBACK');
  }
}

/**
 * Before a connection of a publishing writer closes (its close checkpoints, and the last one
 * deletes the WAL): its frames are read into the page log and checkpointed, the anchor stamped.
 * Does nothing for a database that never published (no page log). Never throws: at worst the
 * next publish compares every page.
 */
export function advanceOnClose(db: Db): void {
  try {
    if (!db.open || db.inTransaction || db.readonly) return;
    const files = walFilesOf(db);
    if (!files || !existsSync(files.dir)) return; // never published: no page log, and no lock taken
    underWriteLock(db, () => {
      const log = PageLog.open(files.dir);
      if (!log) return;
      try {
        catchUpAndSettle(log, files);
      } finally {
        log.close();
      }
    });
  } catch {
    // The close goes on; the next publish finds the log lost or behind and deals with it.
  }
}
