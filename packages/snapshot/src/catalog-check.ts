import { z } from 'zod';
import { catalogCheckKey, VERSION_PATTERN } from './layout.ts';
import type { StorageDriver } from './storage/driver.ts';

const catalogCheckSchema = z.object({
  /** When the build compared the catalog with the current version (ISO 8601). */
  checkedAt: z.iso.datetime(),
  /** The version current after that build: new, or the one already current. */
  version: z.string().regex(VERSION_PATTERN),
});
export type CatalogCheck = z.infer<typeof catalogCheckSchema>;

/**
 * Records that a build checked `game`'s catalog, whether it published a new version or found it
 * already current: "the nightly build did not run" shows as an old check (the gateway's
 * snapdeck_catalog_checked_timestamp_seconds), which an unchanged catalog would not.
 */
export async function recordCatalogCheck(storage: StorageDriver, game: string, version: string, at = new Date()): Promise<void> {
  const check: CatalogCheck = { checkedAt: at.toISOString(), version };
  await storage.put(catalogCheckKey(game), Buffer.from(`${JSON.stringify(check)}\n`), { contentType: 'application/json' });
}

/** The last recorded check of `game`'s catalog, or null when none was recorded or it is unreadable. */
export async function readCatalogCheck(storage: StorageDriver, game: string): Promise<CatalogCheck | null> {
  const object = await storage.get(catalogCheckKey(game));
  if (!object) return null;
  let value: unknown = null;
  try {
    value = JSON.parse(Buffer.from(object.body).toString('utf8'));
  } catch {
    // Not JSON: the same as no check (the alert then says the build has not run).
  }
  const parsed = catalogCheckSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
