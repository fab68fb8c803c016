import { OperatorError } from '@snapdeck/contract';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import {
  PointerMovedError, listSizes, readPointer, sha256Hex, swapPointer, verifyStored, versionIdAfter, versionTime, type StorageDriver,
} from '@snapdeck/snapshot';
import type { Db } from '../db/database.ts';
import { DECK_CURSOR_SECRET, getOrCreateSecret } from '../decks/secret.ts';
import { publishDecksPart, type DecksPublished } from './decks-publish.ts';
import { STORE_SEGMENT_BYTES, storeLayout, storedUnder, type PartRef, type StoreManifest, type StorePart } from './layout.ts';
import { readStoreManifest } from './manifest-read.ts';
import { buildAuthPart, describePart, partObjects, readGenerations, uploadPart } from './parts.ts';
import { pruneStore } from './prune.ts';
import { ownPosition, readPublication, recordPending, recordPublication } from './publications.ts';
import { nextSequence, orderOf, positionOf, type StorePosition } from './version-order.ts';

/**
 * `snapdeck store publish` and `--publish`: the writer database as a new immutable store version.
 *
 * 1. One writer. The database records, per location, the version it last made current there or
 *    was restored from (store_publications). When the location's pointer names another version,
 *    newer than that one or of another store, this database was not derived from it:
 *    StoreLineageError, nothing written. A version this database was making current when its
 *    writer was killed (pending) counts as its own. A pointer naming an OLDER version of this
 *    store was put back (a bucket restore, a stale replica, a hostile write): the store moves
 *    forward from this database, which holds everything since (its revocations too), with a
 *    sequence above both (version-order.ts), and the result says so (`rolledBack`).
 * 2. Nothing changed (same version, same part generations): nothing is written.
 * 3. Only changed parts are built and uploaded; an unchanged part is named again from the current
 *    manifest. Segments, then the manifest (create-only); what was written is verified in storage.
 * 4. The pointer, with compare-and-swap against what it was at step 1; then the record.
 */

export class StoreLineageError extends OperatorError {
  constructor(readonly location: string, current: string, recorded: string | null) {
    super(
      `refusing to publish: the store at ${location} is at version ${current}, which this database ${recorded ? `was not derived from (it last published or restored ${recorded})` : 'has never published or restored'}. ` +
        'There is one writer per store. To make this host the writer, restore first from that location into a new database file (its checks refuse a pointer older than the newest version there). Nothing was published.',
    );
  }
}

export class StoreConflictError extends OperatorError {
  constructor(location: string, version: string, found: string | null) {
    super(`another writer made ${found ?? 'nothing'} current at ${location} while this publish was writing ${version}; ${version} was NOT made current. Nothing else changed. If that was another command on this same database, publish again; if it was another database, this one is no longer the writer: restore first.`);
  }
}

export class StoreVerificationError extends OperatorError {
  constructor(location: string, version: string, problems: string[]) {
    super(`store version ${version} was NOT made current at ${location}: ${problems.length} object(s) do not match:\n  ${problems.slice(0, 5).join('\n  ')}\nPublish again to rewrite them.`);
  }
}

export interface StorePublishResult {
  version: string;
  /** Nothing changed since the last publish: nothing was written. */
  alreadyCurrent: boolean;
  /** Parts built and sent by this publish (an unchanged part is reused). */
  built: StorePart[];
  /** Bytes uploaded (segments not already stored). */
  bytesSent: number;
  /** Size of each part of the version. */
  sizes: Record<StorePart, number>;
  /** Old versions removed after this one was made current (pruneStore). */
  pruned?: { versions: number; bytes: number };
  /**
   * The pointer named `pointer`, older than `own`, which this database had published (or was
   * restored from): this publish moved the store forward again from this database.
   */
  rolledBack?: { pointer: string; own: string };
  /** How the decks part went, when it was built: whole, as a page delta, or whole again (a rebase). */
  decks?: DecksPublished['kind'];
  /** Why the writer compared every page of the decks part instead of reading what changed (decks-publish.ts). */
  decksFallback?: string;
  elapsedMs: number;
}

export interface StorePublishOptions {
  segmentBytes?: number;
  onProgress?: (message: string) => void;
  /** Versions kept besides the current one (default STORE_KEEP_VERSIONS). */
  keep?: number;
  /** Versions younger than this are kept whatever `keep` says (default STORE_PRUNE_MIN_AGE_MS). */
  pruneMinAgeMs?: number;
  /** Decks parts smaller than this are sent whole (default DECKS_DELTA_MIN_BYTES). */
  deltaMinBytes?: number;
  /** A decks chain whose deltas pass this share of the file is re-sent whole (default DECKS_REBASE_RATIO). */
  rebaseRatio?: number;
}

export { STORE_KEEP_VERSIONS, STORE_PRUNE_MIN_AGE_MS, pruneStore } from './prune.ts';
export { readStoreManifest } from './manifest-read.ts';

/**
 * A scratch folder for the part files, beside the database (same disk, and the database's size
 * is what it must hold). Folders of killed publishes (over an hour old) are removed first.
 */
async function workFolder(db: Db): Promise<string> {
  const file = db.memory ? join(tmpdir(), 'snapdeck-store') : resolve(db.name);
  const prefix = `${basename(file)}.publish-`;
  for (const name of await readdir(dirname(file)).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    const info = await stat(join(dirname(file), name)).catch(() => null);
    if (info && Date.now() - info.mtimeMs > 3_600_000) await rm(join(dirname(file), name), { recursive: true, force: true });
  }
  return mkdtemp(join(dirname(file), prefix));
}

export async function publishStore(db: Db, driver: StorageDriver, options: StorePublishOptions = {}): Promise<StorePublishResult> {
  const started = Date.now();
  const location = driver.location;
  const segmentBytes = options.segmentBytes ?? STORE_SEGMENT_BYTES;
  // The listing cursor key travels with the decks: every gateway signs and checks the same cursors.
  getOrCreateSecret(db, DECK_CURSOR_SECRET);

  const base = await readPointer(driver, storeLayout.pointer);
  const baseManifest = base ? await readStoreManifest(driver, base.version) : null;
  let publication = readPublication(db, location);
  if (base && baseManifest && publication?.pending_version === base.version) {
    // The last publish made its version current and was killed before writing it down.
    recordPublication(db, location, positionOf(baseManifest), { auth: publication.pending_auth_generation ?? -1, decks: publication.pending_decks_generation ?? -1 });
    publication = readPublication(db, location);
  }
  const own = await knownPosition(driver, ownPosition(publication));
  // What this version is built on: the parts it may name again, and its `base`.
  let from = baseManifest;
  let rolledBack: StorePublishResult['rolledBack'];
  if (base && baseManifest && publication?.version !== base.version) {
    if (!own || orderOf(own, positionOf(baseManifest)) !== 'older') throw new StoreLineageError(location, base.version, publication?.version ?? null);
    rolledBack = { pointer: base.version, own: own.version };
    from = await readStoreManifest(driver, own.version).catch(() => null);
  }

  const now = readGenerations(db);
  const sizesOf = (m: StoreManifest) => ({ auth: m.parts.auth.size, decks: m.parts.decks.size });
  if (!rolledBack && base && baseManifest && publication && publication.auth_generation === now.auth && publication.decks_generation === now.decks) {
    return { version: base.version, alreadyCurrent: true, built: [], bytesSent: 0, sizes: sizesOf(baseManifest), elapsedMs: Date.now() - started };
  }

  const work = await workFolder(db);
  try {
    const parts: Partial<Record<StorePart, PartRef>> = {};
    const built: StorePart[] = [];
    let bytesSent = 0;
    const reuse = (part: StorePart, generation: number | null | undefined) =>
      from && generation !== null && generation !== undefined && generation === now[part] ? from.parts[part] : null;
    // Objects written by this publish (checked in storage below) and, after the pointer moved, what the decks copy keeps.
    const written: Array<[string, { size: number; sha256: string }]> = [];
    let decksPublished: DecksPublished | null = null;
    for (const part of ['auth', 'decks'] as const) {
      const unchanged = reuse(part, part === 'auth' ? publication?.auth_generation : publication?.decks_generation);
      if (unchanged) {
        parts[part] = unchanged;
        continue;
      }
      options.onProgress?.(`building the ${part} part`);
      built.push(part);
      if (part === 'decks') {
        decksPublished = await publishDecksPart(db, driver, from?.parts.decks ?? null, work, options);
        parts.decks = decksPublished.ref;
        bytesSent += decksPublished.bytesSent;
        written.push(...decksPublished.written);
        continue;
      }
      const file = join(work, `${part}.db`);
      const ref = await describePart(file, buildAuthPart(db, file), segmentBytes);
      options.onProgress?.(`uploading the ${part} part (${ref.size} bytes, ${ref.segments.length} segment(s))`);
      bytesSent += await uploadPart(driver, part, file, ref, segmentBytes);
      parts[part] = ref;
      written.push(...partObjects(part, ref));
    }

    const latest = [base?.version, own?.version].filter((v): v is string => !!v).sort().at(-1) ?? null;
    const version = versionIdAfter(latest);
    const position: StorePosition = {
      version,
      sequence: nextSequence(baseManifest ? positionOf(baseManifest) : null, own),
      storeId: own?.storeId ?? baseManifest?.storeId ?? randomUUID(),
    };
    const manifest: StoreManifest = {
      format: parts.decks!.digest === 'pages' || parts.auth!.digest === 'pages' ? 2 : 1, kind: 'snapdeck-store', version, createdAt: versionTime(version)!.toISOString(), base: rolledBack ? rolledBack.own : base?.version ?? null,
      sequence: position.sequence!, storeId: position.storeId!, parts: { auth: parts.auth!, decks: parts.decks! },
    };
    const body = Buffer.from(JSON.stringify(manifest, null, 1));
    await driver.put(storeLayout.manifest(version), body, { ifNoneMatch: '*', contentType: 'application/json' });
    bytesSent += body.length;

    // What this publish wrote is checked in storage; a part named again unchanged was checked by
    // the publish that wrote it (and every reader checks it again): re-reading a gigabyte of
    // decks for a key change would cost seconds on a folder, where no stored checksum exists.
    const problems = await verifyStored(driver, [...written, [storeLayout.manifest(version), { size: body.length, sha256: sha256Hex(body) }]]);
    // Every other object the version names must at least still be there, whole (one listing per part, no reading).
    const fresh = new Set(written.map(([key]) => key));
    for (const part of ['auth', 'decks'] as const) {
      const present = await listSizes(driver, storeLayout.partPrefix(part, storedUnder(manifest.parts[part])));
      for (const [key, object] of partObjects(part, manifest.parts[part])) {
        if (!fresh.has(key) && present.get(key) !== object.size) problems.push(`${key} is missing or of the wrong size`);
      }
    }
    if (problems.length > 0) throw new StoreVerificationError(location, version, problems);

    const generations = { auth: manifest.parts.auth.generation, decks: manifest.parts.decks.generation };
    recordPending(db, location, version, generations);
    try {
      await swapPointer(driver, storeLayout.pointer, version, base);
    } catch (error) {
      if (error instanceof PointerMovedError) throw new StoreConflictError(location, version, error.found);
      throw error;
    }
    recordPublication(db, location, position, generations);
    await decksPublished?.commit();
    const pruned = await pruneStore(driver, { keep: options.keep, minAgeMs: options.pruneMinAgeMs }).catch((error: unknown) => {
      options.onProgress?.(`old store versions were not removed (the next publish tries again): ${(error as Error).message}`);
      return { versions: 0, bytes: 0 };
    });
    return { version, alreadyCurrent: false, built, bytesSent, sizes: sizesOf(manifest), pruned, rolledBack, decks: decksPublished?.kind, decksFallback: decksPublished?.fallback, elapsedMs: Date.now() - started };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The plain-words account of a rolled-back pointer (the CLI prints it). */
export function rolledBackMessage(location: string, rolledBack: { pointer: string; own: string }): string {
  return `the pointer at ${location} names ${rolledBack.pointer}, older than ${rolledBack.own} which this database published: ` +
    'it was put back (an object-version rollback, a stale replica, or a write by someone else). Publishing from this database, which holds every change since, moves the store forward again.';
}

/** This database's position, its sequence read from its manifest when recorded before sequences existed. */
async function knownPosition(driver: StorageDriver, own: StorePosition | null): Promise<StorePosition | null> {
  if (!own || own.sequence !== null) return own;
  const manifest = await readStoreManifest(driver, own.version).catch(() => null);
  return manifest ? positionOf(manifest) : own;
}
