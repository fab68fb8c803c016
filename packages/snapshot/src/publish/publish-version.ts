/**
 * Publishing one version of one game, safely and resumably: a short orchestration of named steps
 * (build hash, claim.ts, secret.ts, packs.ts through version-writer.ts and upload-queue.ts,
 * verify, pointer.ts), each in its own file.
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
import type { GameSlug } from '@snapdeck/contract';
import { readPointer } from '../reader/pointer.ts';
import type { CatalogEntry } from '../catalog.ts';
import type { Compressor } from '../compressor.ts';
import { deriveCursorKey } from '../cursor/format.ts';
import { sha256Hex } from '../hash.ts';
import { DEFAULT_SEGMENT_BYTES, INDEX_FILE, layout, versionTime, type Manifest } from '../layout.ts';
import { encodeIndex, type VersionIndex } from '../pack.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { verifyStored } from '../storage/inspect.ts';
import { buildHash } from './build-hash.ts';
import { claimVersion } from './claim.ts';
import { PublishConflictError, VersionVerificationError } from './errors.ts';
import { writePacks } from './packs.ts';
import { startSearchIndex } from '../search/write.ts';
import { PointerMovedError, swapPointer } from './pointer.ts';
import { ensureLocationSecret } from './secret.ts';
import { VersionWriter } from './version-writer.ts';
import { CARD_HASHES_FILE } from '../changes/layout.ts';
import { cardHashes, encodeCardHashes } from '../changes/hashes.ts';
import { recordChanges } from '../changes/record.ts';

export interface PublishProgress {
  game: string;
  phase: 'cards' | 'hits' | 'pages' | 'search' | 'finishing';
  done: number;
  total: number;
}

export interface PublishOptions {
  hitsPerPage: readonly number[];
  /** Worker pool for brotli and gzip; the caller owns it (one pool serves every game of a build). */
  compressor: Compressor;
  segmentBytes?: number;
  onProgress?: (progress: PublishProgress) => void;
  /** No search index (BuildOptions.withoutSearchIndex): another version than the indexed one. */
  withoutSearchIndex?: boolean;
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

/** Files checked at the same time when verifying a version. */
const VERIFY_IN_FLIGHT = 8;

/**
 * Writes one immutable version of one game's snapshot and then, only then, points the game's
 * `current.json` at it. Readers following the old pointer keep working throughout.
 */
export async function publishVersion(driver: StorageDriver, game: string, entries: CatalogEntry[], options: PublishOptions): Promise<PublishResult> {
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  const progress = (phase: PublishProgress['phase'], done: number, total: number) => options.onProgress?.({ game, phase, done, total });
  const hash = buildHash(game, entries, options.hitsPerPage, segmentBytes, !options.withoutSearchIndex);
  // The pointer as it is now: the compare-and-swap at the end succeeds only if nobody moved it.
  const base = await readPointer(driver, layout.pointer(game));
  const secret = await ensureLocationSecret(driver);
  const claim = await claimVersion(driver, game, hash, base);
  const version = claim.version;
  if (base?.version === version) {
    const current = await currentResult(driver, game, version, entries.length);
    if (current) return current;
    // The current version lost its manifest: write it all again (same id), then re-point.
  }

  const cursorKey = deriveCursorKey(secret, game, version);
  const writer = await VersionWriter.open(driver, game, version);
  // The search index builds in Pagefind's process while the pages are written here.
  const search = options.withoutSearchIndex ? null : startSearchIndex(game as GameSlug, entries, { segmentBytes, compressor: options.compressor, onProgress: (done, total) => progress('search', done, total) });
  const index = await writePacks(writer, entries, {
    hitsPerPage: options.hitsPerPage,
    segmentBytes,
    compressor: options.compressor,
    cursorKey,
    onProgress: (p) => progress(p.phase, p.done, p.total),
  }).catch(async (error: unknown) => {
    await search?.abandon();
    throw error;
  });
  await search?.write(writer);
  progress('finishing', 0, 1);
  await writer.drain();
  // Card changes (changes/): the version's card hashes, then what changed against the base, before the pointer moves.
  const hashes = await cardHashes(entries);
  await writer.writeFile(CARD_HASHES_FILE, encodeCardHashes(hashes));
  if (base?.version !== version) await recordChanges(driver, game, version, base?.version ?? null, hashes);
  const manifest = await writeIndexAndManifest(writer, index, entries.length, options.hitsPerPage, cursorKey);
  await verifyVersion(driver, game, version, manifest);
  await pointAt(driver, game, version, base);
  progress('finishing', 1, 1);
  return {
    game, version, totalHits: entries.length, files: Object.keys(writer.files).length + 1, bytes: writer.bytes,
    skipped: writer.skipped, skippedBytes: writer.skippedBytes, alreadyCurrent: false, resumed: claim.resumed,
  };
}

/** The result of a run whose claimed version is already current, or null when its manifest is gone. */
async function currentResult(driver: StorageDriver, game: string, version: string, totalHits: number): Promise<PublishResult | null> {
  const current = await driver.get(layout.manifest(game, version));
  if (!current) return null;
  const manifest = JSON.parse(Buffer.from(current.body).toString('utf8')) as Manifest;
  const sizes = Object.values(manifest.files ?? {}).map((file) => file.size);
  return {
    game, version, totalHits, files: sizes.length + 1, bytes: sizes.reduce((a, b) => a + b, 0),
    skipped: 0, skippedBytes: 0, alreadyCurrent: true, resumed: true,
  };
}

/** The index, then the manifest naming every file with its size and checksum (sorted by name). */
async function writeIndexAndManifest(
  writer: VersionWriter, index: VersionIndex, totalHits: number, hitsPerPage: readonly number[], cursorKey: Buffer,
): Promise<{ manifest: Manifest; body: Buffer }> {
  const { game, version } = writer;
  await writer.writeFile(INDEX_FILE, encodeIndex(index));
  const manifest: Manifest = {
    format: 1,
    game,
    version,
    createdAt: versionTime(version)!.toISOString(),
    totalHits,
    hitsPerPage: [...hitsPerPage],
    cursorKey: cursorKey.toString('base64url'),
    files: Object.fromEntries(Object.entries(writer.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
  const body = Buffer.from(JSON.stringify(manifest, null, 1));
  await writer.storeObject(layout.manifest(game, version), body, sha256Hex(body), 'application/json');
  return { manifest, body };
}

/** Everything the manifest names must be in storage, whole and unchanged, before it is current. */
export async function verifyVersion(driver: StorageDriver, game: string, version: string, written: { manifest: Manifest; body: Buffer }): Promise<void> {
  const expected: Array<[string, { size: number; sha256: string }]> = [
    ...Object.entries(written.manifest.files).map(([name, file]) => [layout.file(game, version, name), file] as [string, { size: number; sha256: string }]),
    [layout.manifest(game, version), { size: written.body.length, sha256: sha256Hex(written.body) }],
  ];
  const problems = await verifyStored(driver, expected, VERIFY_IN_FLIGHT);
  if (problems.length > 0) throw new VersionVerificationError(game, version, problems);
}

/** The pointer: compare-and-swap against what it was when this run started, never backwards. */
export async function pointAt(driver: StorageDriver, game: string, version: string, base: { version: string; etag: string } | null): Promise<void> {
  if (base !== null && version < base.version) throw new PublishConflictError(game, version, base.version, base.version);
  try {
    await swapPointer(driver, layout.pointer(game), version, base);
  } catch (error) {
    // Our own write may have landed with its answer lost, or a concurrent run of the same input
    // made this very version current: swapPointer tells those apart from a real conflict.
    if (error instanceof PointerMovedError) throw new PublishConflictError(game, version, base?.version ?? null, error.found);
    throw error;
  }
}
