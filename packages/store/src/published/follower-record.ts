import { mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storeManifestSchema, type PartRef, type StoreManifest, type StorePart } from './layout.ts';
import { tempName } from './parts.ts';

/**
 * The follower's cache folder (`--cache-dir`): downloaded part files under `parts/`, and the local
 * record (`current.json`) of what it served, so that a restart serves it again before (or
 * without) storage answering.
 */
const LOCAL_CURRENT = 'current.json';

export interface LocalRecord {
  manifest: StoreManifest;
  checkedAt: number;
}

export class CacheFolder {
  private constructor(readonly dir: string, private readonly owned: boolean) {}

  /** `dir`, created if needed; none: a new temporary folder, removed by remove(). */
  static async open(dir: string | undefined): Promise<CacheFolder> {
    const folder = dir ? new CacheFolder(dir, false) : new CacheFolder(await mkdtemp(join(tmpdir(), 'snapdeck-store-cache-')), true);
    await mkdir(join(folder.dir, 'parts'), { recursive: true });
    return folder;
  }

  partFile(part: StorePart, ref: PartRef): string {
    return join(this.dir, 'parts', `${part}-${ref.sha256}.db`);
  }

  /** The record, or null when there is none. Throws when it is there but unreadable. */
  async read(): Promise<LocalRecord | null> {
    const text = await readFile(join(this.dir, LOCAL_CURRENT), 'utf8').catch(() => null);
    if (text === null) return null;
    const saved = JSON.parse(text) as { manifest: unknown; checkedAt: number };
    return { manifest: storeManifestSchema.parse(saved.manifest), checkedAt: saved.checkedAt };
  }

  /** Replaces the record (written beside it, renamed into place: never half written). */
  async write(manifest: StoreManifest): Promise<void> {
    const file = join(this.dir, LOCAL_CURRENT);
    const temp = tempName(file);
    await writeFile(temp, JSON.stringify({ manifest, checkedAt: Date.now() }));
    await rename(temp, file);
  }

  /** Part files no view uses (left by an earlier run) are removed; downloads in progress are kept. */
  async removeUnused(inUse: Set<string | undefined>, downloading: boolean): Promise<void> {
    const dir = join(this.dir, 'parts');
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const file = join(dir, name);
      if (!inUse.has(file) && !(downloading && name.includes('.tmp-'))) await rm(file, { force: true });
    }
  }

  /** Removes a temporary folder (one given by the operator stays). */
  async remove(): Promise<void> {
    if (this.owned) await rm(this.dir, { recursive: true, force: true });
  }
}
