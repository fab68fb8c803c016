import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageDriver } from '@snapdeck/snapshot';
import type { Db } from '../db/database.ts';
import { PENDING, PageLog } from '../db/page-log.ts';
import { catchUpAndSettle, underWriteLock, walFilesOf } from '../db/wal-follow.ts';
import { changedPages, everyPage, type DecksSnapshot } from './decks-snapshot.ts';
import { deltaObjects, storedUnder, type DeltaRef, type PartRef } from './layout.ts';
import { deltaRefOf, encodeDelta } from './page-delta.ts';
import { buildDecksPart, describePart, partObjects, uploadPart } from './parts.ts';

/**
 * The decks part, published incrementally (docs/contributors/store-format.md, "Deck changes cost
 * what changed" and "How the writer finds its changed pages").
 *
 * The part is the writer database itself, read page by page under its write lock with the
 * writer-only pages emptied (page-view.ts), and named by its page root. The writer keeps a page log
 * beside the database (db/page-log.ts: the published page hashes and the pages written since, read
 * from the WAL by db/wal-follow.ts): a publish reads, hashes and compares only those pages
 * (decks-snapshot.ts, changedPages), or every page when the log cannot say what changed
 * (everyPage, the fallback, also how a part is first sent or rebased). The pages that differ are
 * the *delta*, uploaded in pieces of at most 4 MiB. The manifest names the base file (its
 * segments, uploaded once) and the chain of deltas since; a gateway holding any file of the chain
 * applies only the deltas after it.
 *
 * Compaction (a rebase): once the deltas of a chain would add up to more than
 * DECKS_REBASE_RATIO of the file, or number DECKS_MAX_DELTAS, the new file is uploaded whole as a
 * new base, with the last delta kept as a `bridge` so that gateways serving the previous file
 * still download only the change. Old bases and their deltas go with the versions that name them
 * (pruneStore). Parts smaller than `deltaMinBytes` are always sent whole: that costs no more.
 */
export const DECKS_REBASE_RATIO = 0.5;
export const DECKS_MAX_DELTAS = 200;
/** Below this a decks part is sent whole (16 MiB: as cheap as a delta of a large store). */
export const DECKS_DELTA_MIN_BYTES = 16 * 1024 * 1024;
/** Segments of a decks base file: small enough for one storage read within the poll timeout. */
export const DECKS_SEGMENT_BYTES = 4 * 1024 * 1024;

export interface DecksPublishOptions {
  deltaMinBytes?: number;
  rebaseRatio?: number;
  onProgress?: (message: string) => void;
}

export interface DecksPublished {
  ref: PartRef;
  bytesSent: number;
  /** What kind of publish: the whole file, a delta on the chain, or a rebase (whole + bridge). */
  kind: 'whole' | 'delta' | 'rebase';
  /** Objects this publish wrote (verified in storage by the caller). */
  written: Array<[string, { size: number; sha256: string }]>;
  /** After the pointer moved: the page log's pending baseline becomes the one the next publish compares with. */
  commit(): Promise<void>;
  /** Why every page was compared (the page log could not say what changed), when it was. */
  fallback?: string;
}

async function readFully(handle: FileHandle, buffer: Buffer, position: number): Promise<number> {
  let done = 0;
  while (done < buffer.length) {
    const { bytesRead } = await handle.read(buffer, done, buffer.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

const chainBytes = (deltas: DeltaRef[]) => deltas.reduce((sum, delta) => sum + delta.pieces.reduce((s, p) => s + p.size, 0), 0);

async function uploadDelta(driver: StorageDriver, under: string, pieces: Buffer[], delta: DeltaRef): Promise<DecksPublished['written']> {
  const objects = deltaObjects('decks', under, delta);
  for (const [n, [key]] of objects.entries()) await driver.put(key, pieces[n]!);
  return objects;
}

/** The content of page `n` (0-based) of a snapshot: in memory (changed pages), else read from its file. */
async function pageReader(snap: DecksSnapshot): Promise<{ page: (n: number) => Buffer; close: () => Promise<void> }> {
  // Each page is read once, into its piece: let it go then.
  if (snap.pages) {
    const pages = snap.pages;
    return { page: (n) => { const page = pages.get(n)!; pages.delete(n); return page; }, close: async () => {} };
  }
  const handle = await open(snap.file!, 'r');
  const wanted = new Map<number, Buffer>();
  for (const n of snap.changed ?? []) {
    const page = Buffer.alloc(snap.pageSize);
    await readFully(handle, page, n * snap.pageSize);
    wanted.set(n, page);
  }
  return { page: (n) => wanted.get(n)!, close: () => handle.close() };
}

/**
 * Builds and uploads the decks part: a delta on `from` (the decks part of the version this one is
 * published on) when the page log knows what changed since, or when comparing every page finds
 * it; else the whole file.
 */
export async function publishDecksPart(db: Db, driver: StorageDriver, from: PartRef | null, work: string, options: DecksPublishOptions = {}): Promise<DecksPublished> {
  const files = walFilesOf(db);
  if (!files) {
    const file = join(work, 'decks.db');
    const ref = await describePart(file, buildDecksPart(db, file), DECKS_SEGMENT_BYTES);
    const bytesSent = await uploadPart(driver, 'decks', file, ref, DECKS_SEGMENT_BYTES);
    return { ref, bytesSent, kind: 'whole', written: partObjects('decks', ref), commit: async () => {} };
  }
  await mkdir(files.dir, { recursive: true });
  // The page cache an import grew (256 MB) is handed back before the publish allocates its own.
  db.pragma('shrink_memory');
  db.pragma('wal_autocheckpoint = 0'); // wal-follow.ts: this connection's frames stay until read
  // Only a part named by its page root (this writer's own kind) is a base for a delta.
  const base = from?.digest === 'pages' && from.pageSize ? from : null;
  const ratio = options.rebaseRatio ?? DECKS_REBASE_RATIO;
  const minBytes = options.deltaMinBytes ?? DECKS_DELTA_MIN_BYTES;
  // Opened (and, the first time, made) under the write lock, like every change to it: processes take turns.
  const log = underWriteLock(db, () => PageLog.open(files.dir) ?? PageLog.create(files.dir));
  let made: Omit<DecksPublished, 'commit' | 'fallback'> & { root: string };
  let fallback: string | undefined;
  try {
    // Why is said once, in the result (decksFallback), not in the progress.
    const every = () => {
      options.onProgress?.('reading every page of the decks part');
      return underWriteLock(db, () => everyPage(db, files, log, base, join(work, 'decks.db'), DECKS_SEGMENT_BYTES));
    };
    const changed = underWriteLock(db, () => changedPages(db, files, log, base));
    let snap: DecksSnapshot;
    if ('fallback' in changed) {
      // With nothing of this kind published yet there is nothing to compare with: not a fallback.
      fallback = base ? changed.fallback : undefined;
      snap = every();
    } else snap = changed;
    let pieces = await deltaPieces(snap, base, minBytes);
    if (!snap.file && base && snap.root !== base.sha256 && !fits(base, pieces, snap.size, ratio)) {
      snap = every(); // a rebase, or a part too small for deltas: the whole file is needed
      pieces = await deltaPieces(snap, base, minBytes);
    }
    made = await upload(driver, snap, base, pieces, ratio, options);
  } finally {
    log.close();
  }
  const root = made.root;
  const commit = async () => {
    underWriteLock(db, () => {
      const now = PageLog.open(files.dir);
      if (!now) return;
      try {
        // The frames written since the snapshot (this publish's own records among them), read and
        // put into the database file: a long-lived writer's next publish reads the frames since
        // this one, not its WAL from the start.
        catchUpAndSettle(now, files);
        if (now.baseline(PENDING)?.root === root) now.promote(files.dir);
      } finally {
        now.close();
      }
    });
  };
  return { ref: made.ref, bytesSent: made.bytesSent, kind: made.kind, written: made.written, commit, fallback };
}

/** The delta from `base` to the snapshot, in pieces (null: no delta to make). */
async function deltaPieces(snap: DecksSnapshot, base: PartRef | null, minBytes: number): Promise<Buffer[] | null> {
  if (!base || !snap.changed || snap.changed.length === 0 || snap.size < minBytes || snap.root === base.sha256) return null;
  const reader = await pageReader(snap);
  try {
    return await encodeDelta(snap.pageSize, snap.size, snap.changed, reader.page);
  } finally {
    await reader.close();
  }
}

const fits = (base: PartRef, pieces: Buffer[] | null, size: number, ratio: number) =>
  pieces !== null && (base.deltas ?? []).length + 1 <= DECKS_MAX_DELTAS && chainBytes(base.deltas ?? []) + pieces.reduce((sum, p) => sum + p.length, 0) <= ratio * size;

async function upload(driver: StorageDriver, snap: DecksSnapshot, base: PartRef | null, pieces: Buffer[] | null, ratio: number, options: DecksPublishOptions): Promise<Omit<DecksPublished, 'commit' | 'fallback'> & { root: string }> {
  const { root, size, pageSize, generation } = snap;
  const pages = { pageSize, pageRoot: root, digest: 'pages' as const };
  if (base && root === base.sha256) return { root, ref: { ...base, generation }, bytesSent: 0, kind: 'delta', written: [] };
  const delta = pieces ? deltaRefOf(pieces, { sha256: root, size }) : null;
  const deltaBytes = (pieces ?? []).reduce((sum, piece) => sum + piece.length, 0);
  if (base && pieces && delta && fits(base, pieces, size, ratio)) {
    options.onProgress?.(`uploading the decks delta (${snap.changed!.length} pages, ${deltaBytes} bytes)`);
    const written = await uploadDelta(driver, storedUnder(base), pieces, delta);
    const ref: PartRef = { sha256: root, size, generation, segments: base.segments, base: base.base ?? { sha256: base.sha256, size: base.size }, deltas: [...(base.deltas ?? []), delta], ...pages };
    return { root, ref, bytesSent: deltaBytes, kind: 'delta', written };
  }
  const whole: PartRef = { sha256: root, size, generation, segments: snap.segments!, ...pages };
  options.onProgress?.(base && pieces ? `the decks deltas outgrew ${ratio} of the file: uploading it whole (a rebase)` : `uploading the decks part whole (${size} bytes)`);
  let bytesSent = await uploadPart(driver, 'decks', snap.file!, whole, DECKS_SEGMENT_BYTES);
  const written = partObjects('decks', whole);
  if (!base || !pieces || !delta) return { root, ref: whole, bytesSent, kind: 'whole', written };
  written.push(...(await uploadDelta(driver, root, pieces, delta)));
  bytesSent += deltaBytes;
  return { root, ref: { ...whole, bridge: { from: base.sha256, delta } }, bytesSent, kind: 'rebase', written };
}
