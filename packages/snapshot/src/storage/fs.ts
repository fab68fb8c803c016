import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, readFile, readdir, rename, rm, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sha256Hex, sha256OfFile } from '../hash.ts';
import { ObjectNotFoundError, PreconditionFailedError, type ObjectInfo, type PutOptions, type StorageDriver, type StoredObject } from './driver.ts';

/** Entity tag of a local file: a hash of its bytes, so it is the same on every machine. */
function etagOf(body: Uint8Array): string {
  return sha256Hex(body).slice(0, 32);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Every file below `dir` (none when it does not exist or is not a folder). */
async function* filesUnder(dir: string): AsyncGenerator<{ full: string; name: string }> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
    throw error;
  }
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(full);
    else yield { full, name: entry.name };
  }
}

/** Files of writers in progress (or killed): `<key>.tmp-*` and `<key>.lock`; never listed as keys. */
function isTemporary(name: string): boolean {
  return name.includes('.tmp-') || name.endsWith('.lock');
}

/**
 * A lock file older than this was left by a writer killed while holding it (a compare-and-swap
 * holds it for a few milliseconds): the next writer breaks it instead of failing forever.
 */
export const DEFAULT_STALE_LOCK_MS = 30_000;

/**
 * How long a writer waits for a live lock to be released before its compare-and-swap is refused.
 * A swap holds it for milliseconds; without the wait, the loser of two concurrent swaps was refused
 * while the object still matched, and could not tell the other writer's version.
 */
const LIVE_LOCK_WAIT_MS = 1000;
const LIVE_LOCK_POLL_MS = 5;

export interface FsDriverOptions {
  /** Age after which a `<key>.lock` file is considered abandoned and broken. Default 30 s. */
  staleLockMs?: number;
}

/**
 * A folder on the local disk. Writes go to a temporary file that is then renamed (or hard-linked,
 * for create-only writes) into place, so a reader sees the old object or the new one, never half.
 */
export class FsDriver implements StorageDriver {
  readonly location: string;
  private readonly root: string;
  private readonly staleLockMs: number;

  constructor(root: string, options: FsDriverOptions = {}) {
    this.root = resolve(root);
    this.location = this.root;
    this.staleLockMs = options.staleLockMs ?? DEFAULT_STALE_LOCK_MS;
  }

  private path(key: string): string {
    if (key.startsWith('/') || key.split('/').some((part) => part === '..' || part === '')) {
      throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
    }
    return join(this.root, ...key.split('/'));
  }

  async get(key: string): Promise<StoredObject | null> {
    try {
      const body = await readFile(this.path(key));
      return { body, size: body.length, etag: etagOf(body) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async getRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    let handle: FileHandle;
    try {
      handle = await open(this.path(key), constants.O_RDONLY);
    } catch (error) {
      if (isMissing(error)) throw new ObjectNotFoundError(key, `${this.location}/${key} does not exist`, { cause: error });
      throw error;
    }
    try {
      const buffer = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(buffer, done, length - done, offset + done);
        if (bytesRead === 0) throw new Error(`${key} is shorter than ${offset + length} bytes`);
        done += bytesRead;
      }
      return buffer;
    } finally {
      await handle.close();
    }
  }

  /** Size, entity tag and SHA-256, hashed as the file streams by (segments can be large). */
  async head(key: string): Promise<ObjectInfo | null> {
    let file;
    try {
      file = await sha256OfFile(this.path(key));
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return null;
      throw error;
    }
    return { size: file.size, etag: file.sha256.slice(0, 32), sha256: file.sha256 };
  }

  async put(key: string, body: Uint8Array, options: PutOptions = {}): Promise<ObjectInfo> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const temp = `${target}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    await writeFile(temp, body);
    try {
      if (options.ifNoneMatch === '*') {
        // link() fails with EEXIST when the target exists: an atomic create-only write.
        try {
          await link(temp, target);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new PreconditionFailedError(key);
          throw error;
        }
      } else if (options.ifMatch !== undefined) {
        await this.swapIfMatch(key, target, temp, options.ifMatch);
      } else {
        await rename(temp, target);
      }
    } finally {
      await rm(temp, { force: true });
    }
    return { size: body.length, etag: etagOf(body) };
  }

  /**
   * Compare-and-swap under a lock file, so two writers cannot both replace the same version.
   *
   * Hand-written on purpose, not proper-lockfile: its stale-lock takeover is stat, then rmdir, then
   * mkdir, so two writers that find the same stale lock can both end up holding it
   * (moxystudio/node-proper-lockfile#121, open) — the very case breakStaleLock exists for, and here
   * it would let two builds replace current.json at once. It also refreshes the lock's mtime on a
   * timer and reports a compromised lock by throwing from that timer, machinery a lock held for a
   * few milliseconds does not need.
   */
  private async swapIfMatch(key: string, target: string, temp: string, expected: string): Promise<void> {
    const lock = `${target}.lock`;
    const handle = await this.acquireLock(key, lock);
    try {
      const current = await this.get(key);
      if (!current || current.etag !== expected) throw new PreconditionFailedError(key);
      await rename(temp, target);
    } finally {
      // Remove the lock only while it is still ours (the same file), not one taken after ours was broken.
      const [mine, now] = await Promise.all([handle.stat().catch(() => null), stat(lock).catch(() => null)]);
      await handle.close();
      if (mine && now && mine.ino === now.ino && mine.dev === now.dev) await unlink(lock).catch(() => {});
    }
  }

  /**
   * Takes the lock file (create-only). A live lock means another writer is swapping right now: it
   * is waited for, up to LIVE_LOCK_WAIT_MS, so that the comparison is then made against what that
   * writer wrote (as an object store's conditional write answers), not refused while the object
   * still matches; still held after that: PreconditionFailedError. A stale one (see
   * DEFAULT_STALE_LOCK_MS) is broken, then taken.
   */
  private async acquireLock(key: string, lock: string): Promise<FileHandle> {
    const giveUpAt = Date.now() + LIVE_LOCK_WAIT_MS;
    for (let breaks = 0; breaks < 4; ) {
      try {
        return await open(lock, 'wx');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (await this.breakStaleLock(lock)) breaks++;
      else if (Date.now() < giveUpAt) await sleep(LIVE_LOCK_POLL_MS);
      else break;
    }
    throw new PreconditionFailedError(key);
  }

  /**
   * Removes the lock when it is stale; true when taking it may be tried again.
   *
   * Writers that find the same stale lock must not race to remove it: one of them could remove a
   * fresh lock another one just took. So the stale lock is identified (inode and modification
   * time) and only the writer that creates `<key>.lock.break-<identity>-<n>.lock` (create-only)
   * removes it, after checking that the lock there is still that very file. A breaker killed while
   * holding its file (a few microseconds) leaves it behind; once that is stale too, the next
   * writer uses the next <n>. A lock is thus removed only by its own writer or because it was
   * found stale, never a live one (unless its writer held it for over `staleLockMs`).
   */
  private async breakStaleLock(lock: string): Promise<boolean> {
    const seen = await stat(lock).catch(() => null);
    if (seen === null) return true; // released meanwhile
    if (Date.now() - seen.mtimeMs < this.staleLockMs) return false;
    const identity = `${seen.ino}-${Math.floor(seen.mtimeMs)}`;
    for (let generation = 0; generation < 100; generation++) {
      const breaker = `${lock}.break-${identity}-${generation}.lock`;
      let handle: FileHandle;
      try {
        handle = await open(breaker, 'wx');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const info = await stat(breaker).catch(() => null);
        if (info === null) return true; // broken and released meanwhile
        if (Date.now() - info.mtimeMs < this.staleLockMs) return false; // another writer is breaking it now
        continue; // that writer was killed while breaking it
      }
      try {
        const now = await stat(lock).catch(() => null);
        if (now && now.ino === seen.ino && now.dev === seen.dev && now.mtimeMs === seen.mtimeMs) await rm(lock, { force: true });
        return true;
      } finally {
        await handle.close();
        await unlink(breaker).catch(() => {});
      }
    }
    return false;
  }

  /**
   * Removes temporary files (`*.tmp-*`, left by writers killed between writing and renaming) not
   * modified for `olderThanMs`, anywhere under the root. A live write renames its temporary file
   * within moments, so an hour-old one is debris. Lock files are left to the writers, which break
   * stale ones under their own protocol (see breakStaleLock); a leftover one costs nothing.
   */
  async removeStaleTemporaries(olderThanMs: number, options: { dryRun?: boolean } = {}): Promise<{ files: number; bytes: number }> {
    const cutoff = Date.now() - olderThanMs;
    let files = 0;
    let bytes = 0;
    for await (const { full, name } of filesUnder(this.root)) {
      if (!name.includes('.tmp-')) continue;
      const info = await stat(full).catch(() => null);
      if (!info || !info.isFile() || info.mtimeMs > cutoff) continue;
      if (!options.dryRun) await rm(full, { force: true });
      files += 1;
      bytes += info.size;
    }
    return { files, bytes };
  }

  async list(prefix: string): Promise<string[]> {
    const start = prefix === '' ? this.root : join(this.root, ...prefix.replace(/\/$/, '').split('/'));
    const keys: string[] = [];
    for await (const { full, name } of filesUnder(start)) {
      if (!isTemporary(name)) keys.push(relative(this.root, full).split(sep).join('/'));
    }
    return keys.filter((key) => key.startsWith(prefix));
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
