import { listSizes, readPointer, versionTime, type StorageDriver } from '@snapdeck/snapshot';
import { storeLayout, storedUnder } from './layout.ts';
import { readStoreManifest } from './manifest-read.ts';

/** Store versions kept behind the current one: rollback room, and for gateways mid-download. */
export const STORE_KEEP_VERSIONS = 5;
/** No version younger than this is removed: a gateway may still be downloading it. */
export const STORE_PRUNE_MIN_AGE_MS = 60 * 60 * 1000;

/**
 * Removes store versions that are neither current, nor among the `keep` newest, nor younger than
 * `minAgeMs`, with the parts only they named (parts are shared between versions: a key change
 * names the same decks part again, so most publishes free nothing but a few kB; a decks part made
 * of deltas lives under its base's prefix, freed once no kept version names that base). Manifests go
 * first, so a part is never removed while a kept manifest names it. Segments no manifest ever
 * named (a publish killed before its manifest) are left alone.
 */
export async function pruneStore(driver: StorageDriver, options: { keep?: number; minAgeMs?: number } = {}): Promise<{ versions: number; bytes: number }> {
  const keep = options.keep ?? STORE_KEEP_VERSIONS;
  const minAgeMs = options.minAgeMs ?? STORE_PRUNE_MIN_AGE_MS;
  const pointer = await readPointer(driver, storeLayout.pointer);
  if (!pointer) return { versions: 0, bytes: 0 };
  const versions = (await driver.list(storeLayout.versionsPrefix))
    .map((key) => key.slice(storeLayout.versionsPrefix.length).replace(/\.json$/, ''))
    .sort()
    .reverse();
  const kept = new Set([pointer.version, ...versions.slice(0, keep + 1)]);
  const doomed = versions.filter((v) => !kept.has(v) && v < pointer.version && Date.now() - (versionTime(v)?.getTime() ?? Date.now()) > minAgeMs);
  if (doomed.length === 0) return { versions: 0, bytes: 0 };
  const prefixesOf = async (list: string[]) => {
    const out = new Set<string>();
    for (const version of list) {
      const manifest = await readStoreManifest(driver, version);
      for (const part of ['auth', 'decks'] as const) out.add(storeLayout.partPrefix(part, storedUnder(manifest.parts[part])));
    }
    return out;
  };
  const named = await prefixesOf(versions.filter((v) => !doomed.includes(v)));
  // Only parts the removed versions named: segments of a publish in progress (not yet named by any
  // manifest) are never touched.
  const freed = [...(await prefixesOf(doomed))].filter((prefix) => !named.has(prefix));
  for (const version of doomed) await driver.delete(storeLayout.manifest(version));
  let bytes = 0;
  for (const prefix of freed) {
    for (const [key, size] of await listSizes(driver, prefix)) {
      await driver.delete(key);
      bytes += size;
    }
  }
  return { versions: doomed.length, bytes };
}

