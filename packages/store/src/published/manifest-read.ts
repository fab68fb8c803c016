import type { StorageDriver } from '@snapdeck/snapshot';
import { parseStoreManifest, storeLayout, type StoreManifest } from './layout.ts';
import { StoreDamagedError } from './parts.ts';

/** The manifest of `version` at the location, checked; throws with the reason when it is not there or damaged. */
export async function readStoreManifest(driver: StorageDriver, version: string): Promise<StoreManifest> {
  const object = await driver.get(storeLayout.manifest(version));
  if (!object) throw new StoreDamagedError(`${driver.location}/${storeLayout.manifest(version)} is missing: the store version ${version} is damaged`);
  try {
    return parseStoreManifest(object.body, version);
  } catch (error) {
    throw new StoreDamagedError(`${driver.location}/${storeLayout.manifest(version)} is not a valid store manifest: ${(error as Error).message}`, { cause: error });
  }
}

