import { OperatorError } from '@snapdeck/contract';
/**
 * Publishing one version of one game, safely and resumably.
 *
 * Version ids. A version id is `<time>-<6 hex>` (VERSION_PATTERN; versions sort by time). The six
 * hex digits are the start of the *build hash*: SHA-256 over the scheme revision (RENDER_REVISION),
 * the manifest format, game, hitsPerPage list, segment size, and every validated entry (id, card
 * JSON, hit JSON) in serving order. The first run for a build hash records its version id in a
 * claim object `_snapdeck/builds/<game>/<build hash>.json`, written create-only
 * (`ifNoneMatch: '*'`); every later run with the same input and options reads the claim and reuses
 * that version id, so a run that was killed is resumed into the same folder. The time part is
 * the claim's time, made later than the current version's if the clock says otherwise.
 *
 * Deterministic bytes. Card, hit and page bodies follow from the entries; brotli and gzip give the
 * same output for the same input and parameters; the index is msgpack of deterministic arrays;
 * the manifest's createdAt is the version id's time and its files are sorted by name. The one
 * secret ingredient, the cursor key baked into page bodies, is HMAC-SHA256(location secret,
 * "snapdeck cursor key|<game>|<version>"), where the location secret is `_snapdeck/secret` (32
 * random bytes created once, create-only, and never served). So a re-run renders byte-identical
 * files for a claimed version.
 *
 * Resume and skip. A run lists the version's folder once; a file that is already there with the
 * same size and the same SHA-256 (the driver's stored checksum, `x-amz-meta-sha256` on S3, else
 * the bytes are read and hashed) is skipped, anything else is (re)written. The result counts the
 * skipped objects.
 *
 * Verify, then point. After the manifest is written, every file of the manifest (and the manifest
 * itself) is checked again in storage (size + checksum). Any mismatch: VersionVerificationError,
 * and the version is not made current (a re-run rewrites the bad files). Then `current.json` is
 * replaced with a compare-and-swap against the pointer read at the start of the run (`ifMatch`
 * its etag, or `ifNoneMatch: '*'` when there was none). Of two concurrent builds only one can
 * win; the other gets PublishConflictError, and its complete version stays unreferenced (gc
 * removes it in time). The pointer never moves to an older version than the one it names.
 *
 * Already current. When the claim's version is the current one, the run writes nothing and says
 * so (`alreadyCurrent`). When the claimed version is older than the current one (the catalog went
 * back to an earlier state, or another build was published after a killed run), a new version id
 * is claimed (the claim is replaced with `ifMatch`) and the files are written again under it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { PointerMovedError, swapPointer, verifyStored } from './pointer.ts';
import { readPointer } from './reader/pointer.ts';
import { sha256Hex } from './hash.ts';
import { deriveCursorKey, encodeCursor } from './cursor/format.ts';
import type { CatalogEntry } from './catalog.ts';
import {
  DEFAULT_SEGMENT_BYTES, INDEX_FILE, LOCATION_SECRET_KEY, PACK_CARDS, PACK_HITS, VERSION_PATTERN, layout, pagesPack,
  type Encoding, type Manifest,
} from './layout.ts';
import { PackWriter, encodeIndex, type PackEntries, type PagesIndex, type VersionIndex } from './pack.ts';
import { cardBody, contentTag, pageBody } from './render.ts';
import type { Compressor } from './compressor.ts';
import { PreconditionFailedError, type StorageDriver } from './storage/driver.ts';
import { listSizes, storedChecksum } from './storage/inspect.ts';

export interface PublishProgress {
  game: string;
  phase: 'cards' | 'hits' | 'pages' | 'finishing';
  done: number;
  total: number;
}

export interface PublishOptions {
  hitsPerPage: readonly number[];
  /** Worker pool for brotli and gzip; the caller owns it (one pool serves every game of a build). */
  compressor: Compressor;
  segmentBytes?: number;
  onProgress?: (progress: PublishProgress) => void;
}

export interface PublishResult {
  game: string;
  version: string;
  totalHits: number;
  files: number;
  bytes: number;
  /** Objects already in storage with the right size and checksum (from an earlier run): not uploaded again. */
  skipped: number;
  skippedBytes: number;
  /** This exact input was already the current version: nothing was written. */
  alreadyCurrent: boolean;
  /** The version id was claimed by an earlier run of the same input (interrupted or beaten), and reused. */
  resumed: boolean;
}

/** Another build moved the pointer while this one was writing: this version is not made current. */
export class PublishConflictError extends OperatorError {
  constructor(readonly game: string, readonly version: string, readonly expected: string | null, readonly found: string | null) {
    const what = found === expected
      ? `${game}/current.json could not be replaced (another writer held it at that moment)`
      : `another build made ${found ?? 'nothing'} current for ${game} while this build was writing ${version}`;
    super(`${what}; version ${version} is complete but was NOT made current (current stays ${found ?? 'unset'}). Run the build again to publish this catalog as a newer version.`);
  }
}

/** Files of a freshly written version do not match its manifest: it is not made current. */
export class VersionVerificationError extends OperatorError {
  constructor(readonly game: string, readonly version: string, readonly problems: string[]) {
    const shown = problems.slice(0, 5).map((p) => `  ${p}`).join('\n');
    const more = problems.length > 5 ? `\n  … and ${problems.length - 5} more` : '';
    super(`${game}: version ${version} was NOT made current: ${problems.length} file(s) in storage do not match its manifest:\n${shown}${more}\nRun the build again to rewrite them.`);
  }
}

/** Bump when rendering changes so that the same input gets a new version id (see the top). */
const RENDER_REVISION = 1;
/** Claims: build hash → version id, per game (gc removes those of deleted versions). */
export const buildClaimsPrefix = (game: string) => `_snapdeck/builds/${game}/`;
const claimKey = (game: string, buildHash: string) => `${buildClaimsPrefix(game)}${buildHash}.json`;
/** Files checked at the same time when verifying a version. */
const VERIFY_IN_FLIGHT = 8;

/** A compression batch closes at this many bodies or bytes, whichever comes first. */
const BATCH_ENTRIES = 256;
const BATCH_BYTES = 2 * 1024 * 1024;
/** At most this many segment uploads in flight per version: bounds memory and connections. */
const WRITES_IN_FLIGHT = 2;

/** A version id for `now`; the six hex digits are random unless `suffix` gives them. */
export function newVersionId(now = new Date(), suffix?: string): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${suffix ?? randomBytes(3).toString('hex')}`;
}

/** The time a version id names, or null when it is not a version id. */
export function versionTime(version: string): Date | null {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-[0-9a-f]{6}$/.exec(version);
  if (!match) return null;
  const time = new Date(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`);
  return Number.isNaN(time.getTime()) ? null : time;
}

/** SHA-256 of everything that determines a version's bytes (see the top of this file). */
export function buildHash(game: string, entries: readonly CatalogEntry[], hitsPerPage: readonly number[], segmentBytes: number): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ scheme: 'snapdeck-version', render: RENDER_REVISION, format: 1, game, hitsPerPage, segmentBytes }));
  // JSON text never holds a raw NUL or newline, so these separators are unambiguous.
  for (const entry of entries) {
    hash.update(`\n${entry.id}\0`);
    hash.update(entry.card);
    hash.update('\0');
    hash.update(entry.hit);
  }
  return hash.digest('hex');
}

/** The location's secret, created (create-only) by the first build that needs it. */
async function locationSecret(driver: StorageDriver): Promise<Buffer> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await driver.get(LOCATION_SECRET_KEY);
    if (existing) {
      if (existing.body.length < 32) throw new Error(`${driver.location}/${LOCATION_SECRET_KEY} is damaged (fewer than 32 bytes)`);
      return Buffer.from(existing.body);
    }
    try {
      await driver.put(LOCATION_SECRET_KEY, randomBytes(32), { ifNoneMatch: '*' });
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
      // Someone else created it first: read theirs.
    }
  }
  throw new Error(`${driver.location}/${LOCATION_SECRET_KEY} cannot be created or read`);
}

/**
 * The version id for this build hash: the one an earlier run claimed (resume), or a new one,
 * claimed now. A claimed version older than the current one is replaced by a new id.
 */
async function claimVersion(
  driver: StorageDriver, game: string, hash: string, base: { version: string } | null,
): Promise<{ version: string; resumed: boolean }> {
  const key = claimKey(game, hash);
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await driver.get(key);
    let claimed: string | null = null;
    if (existing) {
      try {
        const value = JSON.parse(Buffer.from(existing.body).toString('utf8')) as { version?: unknown };
        if (typeof value.version === 'string' && VERSION_PATTERN.test(value.version)) claimed = value.version;
      } catch {
        // A damaged claim is replaced below.
      }
      if (claimed !== null && (base === null || claimed >= base.version)) return { version: claimed, resumed: true };
    }
    let time = Date.now();
    const baseTime = base ? versionTime(base.version) : null;
    if (baseTime && baseTime.getTime() >= time) time = baseTime.getTime() + 1;
    const version = newVersionId(new Date(time), hash.slice(0, 6));
    const body = Buffer.from(JSON.stringify({ version, build: hash, claimedAt: new Date().toISOString() }));
    try {
      await driver.put(key, body, existing ? { ifMatch: existing.etag, contentType: 'application/json' } : { ifNoneMatch: '*', contentType: 'application/json' });
      return { version, resumed: false };
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
      // A concurrent run of the same input claimed first: loop and use its version.
    }
  }
  throw new Error(`${driver.location}/${key}: could not claim a version id (it keeps changing)`);
}

/**
 * Writes one immutable version of one game's snapshot and then, only then, points the game's
 * `current.json` at it. Readers following the old pointer keep working throughout.
 */
export async function publishVersion(driver: StorageDriver, game: string, entries: CatalogEntry[], options: PublishOptions): Promise<PublishResult> {
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  const hash = buildHash(game, entries, options.hitsPerPage, segmentBytes);
  // The pointer as it is now: the compare-and-swap at the end succeeds only if nobody moved it.
  const base = await readPointer(driver, layout.pointer(game));
  const secret = await locationSecret(driver);
  const claim = await claimVersion(driver, game, hash, base);
  const version = claim.version;
  if (base?.version === version) {
    const current = await driver.get(layout.manifest(game, version));
    if (current) {
      const manifest = JSON.parse(Buffer.from(current.body).toString('utf8')) as Manifest;
      const sizes = Object.values(manifest.files ?? {}).map((file) => file.size);
      return {
        game, version, totalHits: entries.length, files: sizes.length + 1, bytes: sizes.reduce((a, b) => a + b, 0),
        skipped: 0, skippedBytes: 0, alreadyCurrent: true, resumed: true,
      };
    }
    // The current version lost its manifest: write it all again (same id), then re-point.
  }
  const cursorKey = deriveCursorKey(secret, game, version);
  const files: Manifest['files'] = {};
  // One listing of what an earlier run of this version already stored.
  const stored = await listSizes(driver, layout.versionPrefix(game, version));
  let skipped = 0;
  let skippedBytes = 0;
  const compressor = options.compressor;
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  let bytes = 0;

  /** Writes an object unless an earlier run left the same bytes there. */
  const storeObject = async (key: string, body: Uint8Array, sha256: string, contentType?: string) => {
    if (stored.get(key) === body.length) {
      const existing = await storedChecksum(driver, key, body.length);
      if (existing?.sha256 === sha256) {
        skipped += 1;
        skippedBytes += body.length;
        return;
      }
    }
    await driver.put(key, body, contentType ? { contentType } : undefined);
  };
  const writeFile = async (name: string, body: Uint8Array) => {
    const key = layout.file(game, version, name);
    const sha256 = sha256Hex(body);
    files[name] = { size: body.length, sha256 };
    bytes += body.length;
    await storeObject(key, body, sha256);
  };
  // Segment uploads overlap with compression; `drain` waits when too many are pending.
  const queueWrite = async (name: string, body: Uint8Array) => {
    while (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
    if (failure !== undefined) throw failure;
    const write: Promise<void> = writeFile(name, body)
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => inFlight.delete(write));
    inFlight.add(write);
  };
  const writers = (pack: string): Record<Encoding, PackWriter> => ({
    identity: new PackWriter((segment, body) => queueWrite(layout.segment(pack, 'identity', segment), body), segmentBytes),
    br: new PackWriter((segment, body) => queueWrite(layout.segment(pack, 'br', segment), body), segmentBytes),
    gzip: new PackWriter((segment, body) => queueWrite(layout.segment(pack, 'gzip', segment), body), segmentBytes),
  });
  const finishAll = async (packWriters: Record<Encoding, PackWriter>): Promise<Record<Encoding, PackEntries>> => ({
    identity: await packWriters.identity.finish(),
    br: await packWriters.br.finish(),
    gzip: await packWriters.gzip.finish(),
  });
  /**
   * Renders bodies in batches and compresses them on worker threads, keeping a few batches in
   * flight so rendering, compressing and uploading overlap; appends results in order.
   */
  const addCompressed = async (packWriters: Record<Encoding, PackWriter>, count: number, render: (i: number) => Buffer, onDone: (done: number) => void) => {
    const inProgress: Array<Promise<{ bodies: Buffer[]; br: Uint8Array[]; gzip: Uint8Array[]; end: number }>> = [];
    const appendOldest = async () => {
      const batch = await inProgress.shift()!;
      for (let i = 0; i < batch.bodies.length; i++) {
        await packWriters.identity.add(batch.bodies[i]!);
        await packWriters.br.add(batch.br[i]!);
        await packWriters.gzip.add(batch.gzip[i]!);
      }
      onDone(batch.end);
    };
    let i = 0;
    while (i < count) {
      const bodies: Buffer[] = [];
      let bytesInBatch = 0;
      while (i < count && bodies.length < BATCH_ENTRIES && bytesInBatch < BATCH_BYTES) {
        const body = render(i++);
        bodies.push(body);
        bytesInBatch += body.length;
      }
      const end = i;
      inProgress.push(compressor.run(bodies).then((compressed) => ({ bodies, ...compressed, end })));
      if (inProgress.length >= compressor.parallelism * 2) await appendOldest();
    }
    while (inProgress.length > 0) await appendOldest();
  };
  const progress = (phase: PublishProgress['phase'], done: number, total: number) => options.onProgress?.({ game, phase, done, total });

  // 1. Cards, for lookups: the exact response body of GET /cards/{id}, in three encodings.
  const cardWriters = writers(PACK_CARDS);
  const etags: string[] = new Array(entries.length);
  await addCompressed(cardWriters, entries.length, (i) => {
    const body = cardBody(entries[i]!.card);
    etags[i] = contentTag(body);
    return body;
  }, (done) => progress('cards', done, entries.length));
  const cardEntries = await finishAll(cardWriters);

  // 2. Hits, each followed by ',', from which any hitsPerPage is assembled without parsing.
  const hitWriter = new PackWriter((segment, body) => queueWrite(layout.segment(PACK_HITS, 'identity', segment), body), segmentBytes, Buffer.from(','));
  const hitBytes = entries.map((entry) => entry.hit);
  for (const hit of hitBytes) await hitWriter.add(hit);
  const hitEntries = await hitWriter.finish();
  progress('hits', entries.length, entries.length);

  // 3. Pre-rendered pages for each configured hitsPerPage, with the next cursor baked in.
  const pages: Record<string, PagesIndex> = {};
  const comma = Buffer.from(',');
  const totalPages = options.hitsPerPage.reduce((sum, hpp) => sum + Math.max(1, Math.ceil(entries.length / hpp)), 0);
  let pagesDone = 0;
  for (const hitsPerPage of options.hitsPerPage) {
    const count = Math.max(1, Math.ceil(entries.length / hitsPerPage));
    const pageWriters = writers(pagesPack(hitsPerPage));
    await addCompressed(pageWriters, count, (page) => {
      const from = page * hitsPerPage;
      const to = Math.min(entries.length, from + hitsPerPage);
      const parts: Buffer[] = [];
      for (let i = from; i < to; i++) {
        if (i > from) parts.push(comma);
        parts.push(hitBytes[i]!);
      }
      const next = page + 1 < count ? encodeCursor(cursorKey, { game, hitsPerPage, version, page: page + 1 }) : null;
      return pageBody(parts, next, entries.length);
    }, (done) => progress('pages', pagesDone + done, totalPages));
    pagesDone += count;
    pages[String(hitsPerPage)] = { count, encodings: await finishAll(pageWriters) };
  }

  // 4. Index, then manifest, then (once everything is in storage) the pointer.
  progress('finishing', 0, 1);
  const index: VersionIndex = { cards: { ids: entries.map((e) => e.id), etags, encodings: cardEntries }, hits: hitEntries, pages };
  await Promise.all(inFlight);
  if (failure !== undefined) throw failure;
  await writeFile(INDEX_FILE, encodeIndex(index));
  const manifest: Manifest = {
    format: 1,
    game,
    version,
    createdAt: versionTime(version)!.toISOString(),
    totalHits: entries.length,
    hitsPerPage: [...options.hitsPerPage],
    cursorKey: cursorKey.toString('base64url'),
    files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
  const manifestKey = layout.manifest(game, version);
  const manifestBody = Buffer.from(JSON.stringify(manifest, null, 1));
  await storeObject(manifestKey, manifestBody, sha256Hex(manifestBody), 'application/json');

  // 5. Everything the manifest names must be in storage, whole and unchanged, before it is current.
  const expected: Array<[string, { size: number; sha256: string }]> = [
    ...Object.entries(manifest.files).map(([name, file]) => [layout.file(game, version, name), file] as [string, { size: number; sha256: string }]),
    [manifestKey, { size: manifestBody.length, sha256: sha256Hex(manifestBody) }],
  ];
  const problems = await verifyStored(driver, expected, VERIFY_IN_FLIGHT);
  if (problems.length > 0) throw new VersionVerificationError(game, version, problems);

  // 6. The pointer: compare-and-swap against what it was when this run started, never backwards.
  if (base !== null && version < base.version) throw new PublishConflictError(game, version, base.version, base.version);
  try {
    await swapPointer(driver, layout.pointer(game), version, base);
  } catch (error) {
    // Our own write may have landed with its answer lost, or a concurrent run of the same input
    // made this very version current: swapPointer tells those apart from a real conflict.
    if (error instanceof PointerMovedError) throw new PublishConflictError(game, version, base?.version ?? null, error.found);
    throw error;
  }
  progress('finishing', 1, 1);
  return {
    game, version, totalHits: entries.length, files: Object.keys(files).length + 1, bytes,
    skipped, skippedBytes, alreadyCurrent: false, resumed: claim.resumed,
  };
}

