import { closeSync, fstatSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the file system says about a file: device, inode, size and the nanosecond times of its last
 * write (mtime) and change (ctime). Every write to a file moves both to the time of that write, as
 * the kernel's clock reads it (a coarse clock: writes within one tick get the same time). So a
 * stamp proves a file unwritten since it was taken only if every later write gets a later time:
 * `outlast` waits, while no one can write the file, until the clock has moved on.
 */
export interface FileStamp {
  dev: string;
  ino: string;
  size: string;
  mtimeNs: string;
  ctimeNs: string;
}

export function stampOf(file: string): FileStamp | null {
  try {
    const info = statSync(file, { bigint: true });
    return { dev: String(info.dev), ino: String(info.ino), size: String(info.size), mtimeNs: String(info.mtimeNs), ctimeNs: String(info.ctimeNs) };
  } catch {
    return null;
  }
}

export const sameStamp = (a: FileStamp | null, b: FileStamp | null): boolean =>
  a !== null && b !== null && a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Returns once a file written now in `dir` (same file system, same clock, same granularity) gets
 * mtime and ctime later than `stamp`'s: from then on any write to the stamped file changes its
 * stamp. False if that did not happen within `limitMs` (a file system with times in whole seconds
 * may take up to two).
 */
export function outlast(stamp: FileStamp, dir: string, limitMs = 3000): boolean {
  const probe = join(dir, `.tick-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const fd = openSync(probe, 'w');
  try {
    const started = Date.now();
    for (;;) {
      writeSync(fd, 'x', 0);
      const info = fstatSync(fd, { bigint: true });
      if (info.mtimeNs > BigInt(stamp.mtimeNs) && info.ctimeNs > BigInt(stamp.ctimeNs)) return true;
      if (Date.now() - started > limitMs) return false;
      Atomics.wait(pause, 0, 0, 1);
    }
  } finally {
    closeSync(fd);
    rmSync(probe, { force: true });
  }
}
