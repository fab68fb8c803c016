import { createHash } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { sha256Hex, sha256OfFile, type StorageDriver } from '@snapdeck/snapshot';
import type { Db } from '../db/database.ts';
import { deltaObjects, storedUnder, type DeltaRef, type PartRef } from './layout.ts';
import { deltaRefOf, encodeDelta } from './page-delta.ts';
import { hashPage, pageRoot } from './page-hashes.ts';
import { buildDecksPart, describePart, partObjects, readGenerations, stripSecrets, uploadPart } from './parts.ts';

/**
 * The decks part, published incrementally (docs/contributors/store-format.md, "Deck changes cost
 * what changed").
 *
 * The part is the writer database itself, copied page for page with SQLite's online backup API
 * (a consistent snapshot that keeps every page where it is, unlike VACUUM INTO, which rewrites
 * them all) and stripped of key and token rows under secure_delete (stripSecrets: it touches only
 * the pages those tables held, the free-list and the schema). The writer keeps the copy it last
 * published, named by its SHA-256, beside the database (`<db>.store-decks/<sha256>.db`). A new
 * copy is compared with it page by page; the pages that differ are the *delta*, uploaded in
 * pieces of at most 4 MiB. The manifest names the base file (its segments, uploaded once) and the
 * chain of deltas since; a gateway holding any file of the chain applies only the deltas after it.
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
  /** After the pointer moved: the new copy becomes the one the next publish compares with. */
  commit(): Promise<void>;
}

const copiesDir = (db: Db) => `${resolve(db.name)}.store-decks`;

async function readFully(handle: FileHandle, buffer: Buffer, position: number): Promise<number> {
  let done = 0;
  while (done < buffer.length) {
    const { bytesRead } = await handle.read(buffer, done, buffer.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/**
 * One pass over `file`: its SHA-256, its segments' (DECKS_SEGMENT_BYTES each) and its pages', and
 * the pages that differ from `previous` (when given), each copied out, unless they add up to more
 * than `limit` bytes (then `changed` is null). One pass, not one per use: at a million decks each
 * pass reads and hashes 1.17 GB.
 */
async function compare(file: string, pageSize: number, previous: string | null, limit: number): Promise<{ sha256: string; size: number; pageRoot: string; segments: PartRef['segments']; changed: Map<number, Buffer> | null }> {
  const { size } = await stat(file);
  const whole = createHash('sha256');
  const hashes = Buffer.alloc(Math.ceil(size / pageSize) * 32);
  const mine = await open(file, 'r');
  const theirs = previous ? await open(previous, 'r') : null;
  let changed: Map<number, Buffer> | null = previous ? new Map() : null;
  let bytes = 0;
  const segments: PartRef['segments'] = [];
  try {
    // A segment is a whole number of pages (SQLite pages are 512 B to 64 KiB, powers of two).
    const block = Buffer.alloc(DECKS_SEGMENT_BYTES);
    const old = Buffer.alloc(block.length);
    for (let offset = 0; offset < size; offset += block.length) {
      const length = await readFully(mine, block.subarray(0, Math.min(block.length, size - offset)), offset);
      whole.update(block.subarray(0, length));
      segments.push({ size: length, sha256: sha256Hex(block.subarray(0, length)) });
      for (let at = 0; at < length; at += pageSize) hashPage(block.subarray(at, Math.min(at + pageSize, length)), hashes, (offset + at) / pageSize);
      if (!changed || !theirs) continue;
      const got = await readFully(theirs, old.subarray(0, length), offset);
      for (let at = 0; at < length; at += pageSize) {
        const page = block.subarray(at, at + pageSize);
        if (at + pageSize <= got && page.equals(old.subarray(at, at + pageSize))) continue;
        changed.set((offset + at) / pageSize, Buffer.from(page));
        bytes += pageSize;
      }
      if (bytes > limit) changed = null;
    }
  } finally {
    await mine.close();
    await theirs?.close();
  }
  if (segments.length === 0) segments.push({ size: 0, sha256: sha256Hex(Buffer.alloc(0)) });
  return { sha256: whole.digest('hex'), size, pageRoot: pageRoot(hashes), segments, changed };
}

/** A consistent copy of the writer database, page for page, stripped of secrets: returns the decks generation it holds at least. */
async function pagedCopy(db: Db, file: string): Promise<{ generation: number; pageSize: number }> {
  const generation = readGenerations(db).decks;
  // A fresh file: backing up over an old copy would journal every page first (measured 1.8 s
  // fresh against 5.2 s over a copy, 233 MB).
  await rm(file, { force: true });
  await rm(`${file}-journal`, { force: true });
  await db.backup(file);
  const part = new Database(file);
  try {
    part.pragma('journal_mode = DELETE');
    stripSecrets(part);
    return { generation, pageSize: part.pragma('page_size', { simple: true }) as number };
  } finally {
    part.close();
  }
}

/**
 * A publish killed after its pointer moved but before it kept its copy leaves `next.db` holding
 * the part now current: kept, once its SHA-256 says so (a delta is only ever made against the very
 * file the gateways hold), instead of sending the whole part again.
 */
async function adoptKilledCopy(next: string, previous: string, sha256: string): Promise<void> {
  if ((await stat(previous).catch(() => null)) || !(await stat(next).catch(() => null))) return;
  if ((await sha256OfFile(next)).sha256 === sha256) await rename(next, previous);
}

const chainBytes = (deltas: DeltaRef[]) => deltas.reduce((sum, delta) => sum + delta.pieces.reduce((s, p) => s + p.size, 0), 0);

async function uploadDelta(driver: StorageDriver, under: string, pieces: Buffer[], delta: DeltaRef): Promise<DecksPublished['written']> {
  const objects = deltaObjects('decks', under, delta);
  for (const [n, [key]] of objects.entries()) await driver.put(key, pieces[n]!);
  return objects;
}

/**
 * Builds and uploads the decks part: a delta on `from` (the decks part of the version this one is
 * published on) when the writer still holds the copy `from` was made of, else the whole file.
 */
export async function publishDecksPart(db: Db, driver: StorageDriver, from: PartRef | null, work: string, options: DecksPublishOptions = {}): Promise<DecksPublished> {
  if (db.memory) {
    const file = join(work, 'decks.db');
    const ref = await describePart(file, buildDecksPart(db, file), DECKS_SEGMENT_BYTES);
    const bytesSent = await uploadPart(driver, 'decks', file, ref, DECKS_SEGMENT_BYTES);
    return { ref, bytesSent, kind: 'whole', written: partObjects('decks', ref), commit: async () => {} };
  }
  const dir = copiesDir(db);
  await mkdir(dir, { recursive: true });
  const next = join(dir, 'next.db');
  const previous = from ? join(dir, `${from.sha256}.db`) : null;
  if (from && previous) await adoptKilledCopy(next, previous, from.sha256);
  options.onProgress?.('copying the decks (SQLite backup API)');
  const { generation, pageSize } = await pagedCopy(db, next);
  const held = previous && (await stat(previous).catch(() => null)) ? previous : null;
  const ratio = options.rebaseRatio ?? DECKS_REBASE_RATIO;
  const { size: nextSize } = await stat(next);
  const usable = held !== null && nextSize >= (options.deltaMinBytes ?? DECKS_DELTA_MIN_BYTES);
  // Pages are collected up to the default ratio even under a lower one: a rebase still sends them as its bridge.
  const { sha256, size, pageRoot: root, segments, changed } = await compare(next, pageSize, usable ? held : null, Math.max(ratio, DECKS_REBASE_RATIO) * nextSize);
  const pages = { pageSize, pageRoot: root };
  const commit = async () => {
    await rename(next, join(dir, `${sha256}.db`));
    for (const name of await readdir(dir)) if (name !== `${sha256}.db`) await rm(join(dir, name), { force: true });
  };
  const result = { sha256, size };
  if (from && sha256 === from.sha256) return { ref: { ...from, generation, ...pages }, bytesSent: 0, kind: 'delta', written: [], commit };
  if (from && changed && changed.size > 0) {
    const numbers = [...changed.keys()].sort((a, b) => a - b);
    const pieces = encodeDelta(pageSize, size, numbers, (n) => changed.get(n)!);
    const delta = deltaRefOf(pieces, result);
    const deltas = [...(from.deltas ?? []), delta];
    const deltaBytes = pieces.reduce((sum, piece) => sum + piece.length, 0);
    if (deltas.length <= DECKS_MAX_DELTAS && chainBytes(deltas) <= ratio * size) {
      options.onProgress?.(`uploading the decks delta (${numbers.length} pages, ${deltaBytes} bytes)`);
      const under = storedUnder(from);
      const written = await uploadDelta(driver, under, pieces, delta);
      const ref: PartRef = { sha256, size, generation, segments: from.segments, base: from.base ?? { sha256: from.sha256, size: from.size }, deltas, ...pages };
      return { ref, bytesSent: deltaBytes, kind: 'delta', written, commit };
    }
    options.onProgress?.(`the decks deltas outgrew ${ratio} of the file: uploading it whole (a rebase)`);
    const whole: PartRef = { sha256, size, generation, segments };
    let bytesSent = await uploadPart(driver, 'decks', next, whole, DECKS_SEGMENT_BYTES);
    const written = partObjects('decks', whole);
    written.push(...(await uploadDelta(driver, sha256, pieces, delta)));
    bytesSent += deltaBytes;
    return { ref: { ...whole, bridge: { from: from.sha256, delta }, ...pages }, bytesSent, kind: 'rebase', written, commit };
  }
  options.onProgress?.(`uploading the decks part whole (${size} bytes)`);
  const ref: PartRef = { sha256, size, generation, segments, ...pages };
  const bytesSent = await uploadPart(driver, 'decks', next, ref, DECKS_SEGMENT_BYTES);
  return { ref, bytesSent, kind: 'whole', written: partObjects('decks', ref), commit };
}
