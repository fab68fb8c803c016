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
 * it any more (commit-check.ts reasons the same way for the gateway's reads).
 */
const held = new Map<string, number>();

/** A descriptor of the file now at `path`, or null when there is none. */
export function heldDescriptor(path: string): number | null {
  let info;
  try {
    info = statSync(path, { bigint: true });
  } catch {
    return null;
  }
  const key = `${info.dev}:${info.ino}`;
  const known = held.get(key);
  if (known !== undefined) return known;
  for (const [other, descriptor] of held) {
    if (fstatSync(descriptor).nlink === 0) {
      closeSync(descriptor);
      held.delete(other);
    }
  }
  const fd = openSync(path, 'r');
  const opened = fstatSync(fd, { bigint: true });
  held.set(`${opened.dev}:${opened.ino}`, fd);
  return fd;
}
