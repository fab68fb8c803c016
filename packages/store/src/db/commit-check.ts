import { readSync } from 'node:fs';
import type { Db } from './database.ts';
import { heldFile, type HeldFile } from './held-files.ts';
import { INDEX_HEADER_BYTES, WAL_VERSION } from './wal.ts';

/** Says whether the database may have changed since it was last asked: true on the first call. */
export interface CommitCheck {
  changed(): boolean;
}

/**
 * How a reader of `db` learns that a connection (this one or another process's) committed since it
 * last looked, exactly: once a commit has returned, the next call says so. For a WAL database,
 * one read of the wal-index header (a pread); otherwise `PRAGMA data_version` (which moves for
 * other connections' commits only), which takes SQLite's shared lock: two fcntl calls and a stat.
 * Asked on every deck read, so the cheaper way counts (bench:hotpath, "GET /v1/decks/{deckId}
 * (json)" and "POST /v1/decks/details (10 ids)"; the figures: docs/benchmarks.md).
 *
 * Ask it only while `db` is open: SQLite keeps the `-shm` file as it is while a connection of this
 * process uses it.
 */
export function commitCheck(db: Db): CommitCheck {
  const shm = walIndexFile(db);
  return shm === null ? dataVersionCheck(db) : walIndexCheck(shm);
}

function dataVersionCheck(db: Db): CommitCheck {
  const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  let seen: number | undefined;
  return {
    changed() {
      const version = dataVersion.get()!;
      if (version === seen) return false;
      seen = version;
      return true;
    },
  };
}

/**
 * Reads the wal-index header: the first INDEX_HEADER_BYTES of a WAL database's `-shm` file, which
 * every commit rewrites before it returns (its iChange counter moves with each write transaction;
 * the copy read here is the one written last). https://sqlite.org/walformat.html, "The WAL-Index
 * Header". The descriptor is held-files.ts's, shared with the writer's reads of the same file.
 */
function walIndexCheck(shm: HeldFile): CommitCheck {
  const read = Buffer.alloc(INDEX_HEADER_BYTES);
  const seen = Buffer.alloc(INDEX_HEADER_BYTES);
  let first = true;
  return {
    changed() {
      // Closed only when its file was deleted while `db` was open (by hand: SQLite never does):
      // nothing to read, so every call says "changed" and the reader goes to SQL each time.
      if (!shm.open) return true;
      // A header cut short (never seen: SQLite sizes the file before writing it) reads as a change.
      if (readSync(shm.fd, read, 0, INDEX_HEADER_BYTES, 0) !== INDEX_HEADER_BYTES) return true;
      if (!first && read.equals(seen)) return false;
      first = false;
      read.copy(seen);
      return true;
    },
  };
}

/**
 * `db`'s `-shm` file when `db` is a WAL database whose wal-index this reading knows, else null.
 */
function walIndexFile(db: Db): HeldFile | null {
  // In exclusive locking mode SQLite may keep the wal-index in its own memory, not in the file
  // (https://sqlite.org/wal.html#noshm), and no other process can commit anyway.
  if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal' || db.pragma('locking_mode', { simple: true }) === 'exclusive') return null;
  db.pragma('data_version'); // a read: SQLite has made and mapped the -shm file
  const file = mainFile(db);
  if (file === '') return null; // a temporary database: no file
  const shm = heldFile(`${file}-shm`);
  if (shm === null) return null;
  const header = Buffer.alloc(INDEX_HEADER_BYTES);
  if (readSync(shm.fd, header, 0, INDEX_HEADER_BYTES, 0) !== INDEX_HEADER_BYTES) return null;
  // iVersion is in the machine's byte order.
  return header.readUInt32LE(0) === WAL_VERSION || header.readUInt32BE(0) === WAL_VERSION ? shm : null;
}

/**
 * The path of the file SQLite opened for `db`'s main database, as SQLite made it absolute: with
 * every symbolic link resolved, and whatever the working directory is now. SQLite names the -shm
 * file after this path, not after the one `db` was opened with (`--db current.db` → `releases/
 * 7/snapdeck.db-shm`), so a stale `-shm` left beside a link is never read for the database.
 */
function mainFile(db: Db): string {
  const databases = db.pragma('database_list') as Array<{ name: string; file: string }>;
  return databases.find((database) => database.name === 'main')?.file ?? '';
}
