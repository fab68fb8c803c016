import { statSync } from 'node:fs';
import { OperatorError } from '@snapdeck/contract';
import { openStorage, type StorageDriver } from '@snapdeck/snapshot';

/**
 * Where a published store lives (`--publish`, `store publish --to`, `store restore --from`,
 * `serve --store`): a folder or s3://bucket/prefix. The one check of a location, made before
 * anything changes or starts; `what` is the option as given (`--store /srv/x`), which the
 * message leads with.
 */

/** Refuses an empty location, and a path that is a file rather than a folder. */
export function checkStoreLocation(location: string, what: string): void {
  if (location.trim() === '') throw new OperatorError(`${what}: the location is empty; give a folder or s3://bucket/prefix. Nothing was changed.`);
  if (location.startsWith('s3://')) return;
  const info = statSync(location, { throwIfNoEntry: false });
  if (info && !info.isDirectory()) throw new OperatorError(`${what}: ${location} is a file, not a folder: a store location is a folder or s3://bucket/prefix. Nothing was changed.`);
}

/** Checks a location (checkStoreLocation), then opens it; a malformed s3:// location is refused too. */
export function openStoreLocation(location: string, what: string): StorageDriver {
  checkStoreLocation(location, what);
  try {
    return openStorage(location);
  } catch (error) {
    throw new OperatorError(`${what}: ${(error as Error).message}. Nothing was changed.`, { cause: error });
  }
}
