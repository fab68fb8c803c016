import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageDriver } from './driver.ts';
import { FsDriver } from './fs.ts';

/**
 * Every key under `prefix` with its size: one listing where the driver gives sizes with it (S3);
 * for a local folder, a listing plus a stat per file (cheap on a local disk); otherwise a HEAD
 * per key.
 */
export async function listSizes(driver: StorageDriver, prefix: string): Promise<Map<string, number>> {
  if (driver.listSizes) return driver.listSizes(prefix);
  const keys = await driver.list(prefix);
  const sizes = new Map<string, number>();
  await forEachLimit(keys, 16, async (key) => {
    if (driver instanceof FsDriver) {
      // FsDriver.location is its resolved root folder.
      const info = await stat(join(driver.location, ...key.split('/'))).catch(() => null);
      if (info) sizes.set(key, info.size);
    } else {
      const info = await driver.head(key);
      if (info) sizes.set(key, info.size);
    }
  });
  return sizes;
}

/**
 * Size and SHA-256 of a stored object, or null when it does not exist. Uses the checksum the
 * driver keeps (S3 metadata) when it has one; otherwise reads the object and hashes it. With
 * `expectedSize`, an object of another size is reported without reading it (sha256 '').
 */
export async function storedChecksum(driver: StorageDriver, key: string, expectedSize?: number): Promise<{ size: number; sha256: string } | null> {
  const info = await driver.head(key);
  if (!info) return null;
  if (expectedSize !== undefined && info.size !== expectedSize) return { size: info.size, sha256: '' };
  if (info.sha256) return { size: info.size, sha256: info.sha256 };
  const object = await driver.get(key);
  if (!object) return null;
  return { size: object.body.length, sha256: createHash('sha256').update(object.body).digest('hex') };
}

/** Runs `task` over `items`, at most `limit` at a time; the first failure is thrown. */
export async function forEachLimit<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      try {
        await task(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}
