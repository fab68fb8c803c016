import { mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { VERSION_PATTERN } from '@snapdeck/snapshot';
import { STORE_ID_PATTERN, partRefSchema, storeManifestSchema, type PartRef, type StorePart } from './layout.ts';
import type { ResolvedDeckCache } from '../decks/resolved-cache.ts';
import { FollowedView, OpenPart } from './follower-view.ts';
import { hasPart, tempName } from './parts.ts';
import { positionOf, type StorePosition } from './version-order.ts';

/**
 * The follower's cache folder (`--cache-dir`): downloaded part files under `parts/`, and the local
 * record (`current.json`) of what it served, so that a restart serves it again before (or
 * without) storage answering.
 */
const LOCAL_CURRENT = 'current.json';

/**
 * The view served, as it was paired: the auth part of `position` with the decks part of
 * `decksVersion` (older while newer decks download). Written before the view is served and before
 * the files it replaces are removed, so it always names files that are there, and a restart
 * serves exactly what was served (never an older version: version-order.ts).
 */
const recordSchema = z.object({
  format: z.literal(2),
  version: z.string().regex(VERSION_PATTERN),
  sequence: z.number().int().positive().nullable(),
  storeId: z.string().regex(STORE_ID_PATTERN).nullable(),
  decksVersion: z.string().regex(VERSION_PATTERN),
  parts: z.object({ auth: partRefSchema, decks: partRefSchema }),
  checkedAt: z.number(),
});
/** The record of gateways before format 2: the whole manifest of a version served auth and decks alike. */
const manifestRecordSchema = z.object({ manifest: storeManifestSchema, checkedAt: z.number() });

export interface LocalRecord {
  position: StorePosition;
  decksVersion: string;
  parts: { auth: PartRef; decks: PartRef };
  /** When storage last confirmed it (the served version's age goes on from there). */
  checkedAt: number;
}

function parseRecord(json: unknown): LocalRecord {
  const old = manifestRecordSchema.safeParse(json);
  if (old.success) {
    const { manifest, checkedAt } = old.data;
    return { position: positionOf(manifest), decksVersion: manifest.version, parts: manifest.parts, checkedAt };
  }
  const record = recordSchema.parse(json);
  return { position: { version: record.version, sequence: record.sequence, storeId: record.storeId }, decksVersion: record.decksVersion, parts: record.parts, checkedAt: record.checkedAt };
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
    return text === null ? null : parseRecord(JSON.parse(text));
  }

  /**
   * The record and, when its part files are all there, the view it names (opened; its decks part
   * handed to `onDecksDisposed` once no view uses it; its decks' zones kept in `zones`). Throws when
   * the record is unreadable.
   */
  async openSaved(onDecksDisposed: (part: OpenPart) => void, zones: ResolvedDeckCache): Promise<{ saved: LocalRecord; view: FollowedView | null } | null> {
    const saved = await this.read();
    if (saved === null) return null;
    const { auth, decks } = saved.parts;
    if (!(await hasPart(this.partFile('auth', auth), auth)) || !(await hasPart(this.partFile('decks', decks), decks))) return { saved, view: null };
    const deckPart = Object.assign(new OpenPart('decks', decks, this.partFile('decks', decks)), { onDisposed: onDecksDisposed });
    return { saved, view: new FollowedView(new OpenPart('auth', auth, this.partFile('auth', auth)), deckPart, saved.position, saved.decksVersion, zones) };
  }

  /** Replaces the record (written beside it, flushed, renamed into place: never half written). */
  async write(record: LocalRecord): Promise<void> {
    const { position, decksVersion, parts, checkedAt } = record;
    const file = join(this.dir, LOCAL_CURRENT);
    const temp = tempName(file);
    const body = { format: 2, version: position.version, sequence: position.sequence, storeId: position.storeId, decksVersion, parts, checkedAt };
    await writeFile(temp, JSON.stringify(body), { flush: true });
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
