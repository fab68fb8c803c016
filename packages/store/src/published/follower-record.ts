import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storeManifestSchema, type StoreManifest } from './layout.ts';
import { tempName } from './parts.ts';

/**
 * The follower's local record in its cache folder (`current.json`): what it served, so that a
 * restart serves it again before (or without) storage answering.
 */
const LOCAL_CURRENT = 'current.json';

export interface LocalRecord {
  manifest: StoreManifest;
  checkedAt: number;
}

/** The record in `cacheDir`, or null when there is none. Throws when it is there but unreadable. */
export async function readLocalRecord(cacheDir: string): Promise<LocalRecord | null> {
  const text = await readFile(join(cacheDir, LOCAL_CURRENT), 'utf8').catch(() => null);
  if (text === null) return null;
  const saved = JSON.parse(text) as { manifest: unknown; checkedAt: number };
  return { manifest: storeManifestSchema.parse(saved.manifest), checkedAt: saved.checkedAt };
}

/** Replaces the record (written beside it, renamed into place: never half written). */
export async function writeLocalRecord(cacheDir: string, manifest: StoreManifest): Promise<void> {
  const file = join(cacheDir, LOCAL_CURRENT);
  const temp = tempName(file);
  await writeFile(temp, JSON.stringify({ manifest, checkedAt: Date.now() }));
  await rename(temp, file);
}
