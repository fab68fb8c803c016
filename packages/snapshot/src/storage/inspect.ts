import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import pMap from 'p-map';
import { sha256Hex } from '../hash.ts';
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
  return { size: object.body.length, sha256: sha256Hex(object.body) };
}

/**
 * Runs `task` over `items`, at most `limit` at a time (p-map); the first failure is thrown and no
 * further item is started.
 */
export async function forEachLimit<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  await pMap(items, task, { concurrency: Math.max(1, limit) });
}

/**
 * Checks every object in storage against its expected size and SHA-256 (the driver's stored
 * checksum when it has one, else the bytes, hashed); the problems found, sorted (none: all good).
 */
export async function verifyStored(driver: StorageDriver, expected: ReadonlyArray<readonly [string, { size: number; sha256: string }]>, inFlight = 8): Promise<string[]> {
  const problems: string[] = [];
  await forEachLimit(expected, inFlight, async ([key, file]) => {
    const found = await storedChecksum(driver, key, file.size);
    if (!found) problems.push(`${key} is missing`);
    else if (found.size !== file.size) problems.push(`${key} has ${found.size} bytes, the manifest says ${file.size}`);
    else if (found.sha256 !== file.sha256) problems.push(`${key} does not match its SHA-256 in the manifest`);
  });
  return problems.sort();
}
