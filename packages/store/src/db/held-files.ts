import { closeSync, fstatSync, openSync, statSync } from 'node:fs';

/**
 * Read-only descriptors of a database's main file and `-shm` file, opened once per file (device
 * and inode) and never closed while the process lives. Closing any descriptor of a file drops
 * every POSIX lock the process holds on it, and SQLite's connections in this process hold theirs
 * on exactly these files (the database's SHARED lock, the WAL locks in `-shm`): a read that opened
 * and closed its own descriptor released them, so another process took the write lock meanwhile,
 * or deleted the WAL as if no one were connected. One descriptor per file (a file replaced at its
 * path gets a new one); one whose file was deleted is closed when the next is opened: SQLite
 * deletes a `-shm` file only as the last connection to the database closes, so no lock is held on
 * it any more. The one home of such descriptors: the writer's reads of the WAL index and pages
 * (wal.ts, page-view.ts) and the gateway's commit check (commit-check.ts) share them.
 */
const held = new Map<string, HeldFile>();

/** A file held open here: its descriptor, and whether it still is (false once its file was deleted and the descriptor closed). */
export interface HeldFile {
  readonly fd: number;
  open: boolean;
}

/**
 * The file now at `path`, held open, or null when there is none. One kept past this call (a reader
 * that keeps it, as commit-check.ts does) must look at `open` before each read: a file deleted
 * while its database is open (by hand; SQLite never does) is closed all the same.
 */
export function heldFile(path: string): HeldFile | null {
  let info;
  try {
    info = statSync(path, { bigint: true });
  } catch {
    return null;
  }
  const known = held.get(`${info.dev}:${info.ino}`);
  if (known !== undefined) return known;
  for (const [other, file] of held) {
    if (fstatSync(file.fd).nlink === 0) {
      closeSync(file.fd);
      file.open = false;
      held.delete(other);
    }
  }
  const fd = openSync(path, 'r');
  const opened = fstatSync(fd, { bigint: true });
  const file: HeldFile = { fd, open: true };
  held.set(`${opened.dev}:${opened.ino}`, file);
  return file;
}

/** A descriptor of the file now at `path`, held open, or null when there is none: for a read now. */
export function heldDescriptor(path: string): number | null {
  return heldFile(path)?.fd ?? null;
}
