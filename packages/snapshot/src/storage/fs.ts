import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, readFile, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { PreconditionFailedError, type ObjectInfo, type PutOptions, type StorageDriver, type StoredObject } from './driver.ts';

/** Entity tag of a local file: a hash of its bytes, so it is the same on every machine. */
function etagOf(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 32);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * A folder on the local disk. Writes go to a temporary file that is then renamed (or hard-linked,
 * for create-only writes) into place, so a reader sees the old object or the new one, never half.
 */
export class FsDriver implements StorageDriver {
  readonly location: string;
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
    this.location = this.root;
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
    const handle = await open(this.path(key), constants.O_RDONLY);
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

  async head(key: string): Promise<ObjectInfo | null> {
    const object = await this.get(key);
    return object && { size: object.size, etag: object.etag };
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

  /** Compare-and-swap under a lock file, so two writers cannot both replace the same version. */
  private async swapIfMatch(key: string, target: string, temp: string, expected: string): Promise<void> {
    const lock = `${target}.lock`;
    let handle;
    try {
      handle = await open(lock, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new PreconditionFailedError(key);
      throw error;
    }
    try {
      const current = await this.get(key);
      if (!current || current.etag !== expected) throw new PreconditionFailedError(key);
      await rename(temp, target);
    } finally {
      await handle.close();
      await unlink(lock).catch(() => {});
    }
  }

  async list(prefix: string): Promise<string[]> {
    const base = this.root;
    const start = prefix === '' ? base : join(base, ...prefix.replace(/\/$/, '').split('/'));
    const keys: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) return;
        throw error;
      }
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (!entry.name.includes('.tmp-') && !entry.name.endsWith('.lock')) {
          keys.push(relative(base, full).split(sep).join('/'));
        }
      }
    };
    try {
      const info = await stat(start);
      if (info.isDirectory()) await walk(start);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    return keys.filter((key) => key.startsWith(prefix));
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }
}
