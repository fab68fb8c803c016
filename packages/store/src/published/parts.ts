import { OperatorError } from '@snapdeck/contract';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { sha256Hex, sha256OfFile, storedChecksum, type StorageDriver } from '@snapdeck/snapshot';
import type { Db } from '../db/database.ts';
import { STORE_SEGMENT_BYTES, deltaObjects, storeLayout, storedUnder, type PartRef, type StorePart } from './layout.ts';
import { hashPage, pageRoot, pageRootOf } from './page-root.ts';

/**
 * Part files: building them from the writer database, uploading them in verified segments, and
 * downloading them again with every checksum checked.
 */

/** Schema of the auth part: what a gateway needs to authenticate keys and tokens, nothing more. */
const AUTH_SCHEMA = `
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, key_prefix TEXT NOT NULL,
    scopes TEXT NOT NULL DEFAULT '', quota INTEGER NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT
  );
  CREATE TABLE deck_tokens (
    token_hash TEXT PRIMARY KEY, deck_id TEXT NOT NULL, kind TEXT NOT NULL,
    created_at INTEGER NOT NULL, expires_at INTEGER
  ) WITHOUT ROWID;
`;

export interface Generations {
  auth: number;
  decks: number;
}

export function readGenerations(db: Db): Generations {
  const rows = db.prepare<[], { part: string; generation: number }>('SELECT part, generation FROM store_generations').all();
  const of = (part: string) => rows.find((row) => row.part === part)?.generation ?? 0;
  return { auth: of('auth'), decks: of('decks') };
}

export const tempName = (file: string) => `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;

/**
 * Writes the auth part to `file`: key hashes (revoked ones too, so that a revocation is data, not
 * an absence) and the hashes of tokens still valid, each with its deck's id. Read in one
 * transaction, so the generation returned is exactly what the file holds.
 */
export function buildAuthPart(db: Db, file: string, now = Date.now()): number {
  const part = new Database(file);
  part.pragma('journal_mode = DELETE');
  part.exec(AUTH_SCHEMA);
  part.close();
  db.prepare('ATTACH DATABASE ? AS part').run(file);
  try {
    return db.transaction(() => {
      const generation = readGenerations(db).auth;
      db.exec('INSERT INTO part.api_keys SELECT id, name, key_hash, key_prefix, scopes, quota, created_at, revoked_at FROM main.api_keys');
      db.prepare(
        `INSERT INTO part.deck_tokens SELECT t.token_hash, d.id, t.kind, t.created_at, t.expires_at
           FROM main.deck_tokens t JOIN main.decks d ON d.seq = t.deck_seq WHERE t.expires_at IS NULL OR t.expires_at > ?`,
      ).run(now);
      return generation;
    })();
  } finally {
    db.exec('DETACH DATABASE part');
  }
}

/**
 * Writes the decks part to `file`: a consistent copy of the writer database (VACUUM INTO, which
 * reads one snapshot and writes a compact file) with the key and token rows and the publication
 * records taken out (they travel in the auth part, or not at all; see stripSecrets). Returns the
 * decks generation read before the copy: the copy holds at least that much (a later write makes
 * the next publish send the part again, never miss it).
 */
export function buildDecksPart(db: Db, file: string): number {
  const generation = readGenerations(db).decks;
  db.prepare('VACUUM INTO ?').run(file);
  const part = new Database(file);
  try {
    part.pragma('journal_mode = DELETE');
    stripSecrets(part);
  } finally {
    part.close();
  }
  return generation;
}

/** Tables of the writer's schema that a decks part keeps empty (their rows are secrets or the writer's own). */
export const WRITER_ONLY_TABLES = ['api_keys', 'deck_tokens', 'store_publications'] as const;

/**
 * Empties WRITER_ONLY_TABLES of a copy of the writer database so that not one byte of their rows
 * is left in the file (the tables stay, empty, so that `store restore` gets the writer's schema).
 * A row-by-row DELETE is not enough, even with secure_delete: it zeroes the deleted cells, but
 * b-tree rebalancing leaves stale copies of cells in pages' unused space (a part built that way
 * still held ~100 key ids and hashes). So the tables are cleared whole: without their triggers
 * (re-created afterwards from their own SQL) a DELETE without WHERE truncates each b-tree, and
 * under secure_delete every page it frees is overwritten with zeros and every root page is
 * zeroed. This holds for any copy, logical (VACUUM INTO) or page by page (the backup API).
 */
export function stripSecrets(part: Database.Database): void {
  part.pragma('secure_delete = ON');
  part.pragma('foreign_keys = OFF'); // a foreign key check would turn the truncation back into row deletes
  const tables = WRITER_ONLY_TABLES.map((table) => `'${table}'`).join(', ');
  const triggers = part
    .prepare<[], { name: string; sql: string }>(`SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name IN (${tables})`)
    .all();
  part.transaction(() => {
    for (const trigger of triggers) part.exec(`DROP TRIGGER "${trigger.name}"`);
    for (const table of WRITER_ONLY_TABLES) part.exec(`DELETE FROM ${table}`);
    for (const trigger of triggers) part.exec(trigger.sql);
  })();
}

/**
 * Describes a built part file: its checksum, size and segments. One pass: each segment feeds its
 * own hash and the whole file's (a decks part is a gigabyte at a million decks).
 */
export async function describePart(file: string, generation: number, segmentBytes = STORE_SEGMENT_BYTES): Promise<PartRef> {
  const { size } = await stat(file);
  const segments: PartRef['segments'] = [];
  const whole = createHash('sha256');
  const handle = await open(file, 'r');
  try {
    for (let offset = 0; offset < size || segments.length === 0; offset += segmentBytes) {
      const body = await readSegment(handle, offset, Math.min(segmentBytes, size - offset));
      whole.update(body);
      segments.push({ size: body.length, sha256: sha256Hex(body) });
    }
  } finally {
    await handle.close();
  }
  return { sha256: whole.digest('hex'), size, generation, segments };
}

async function readSegment(handle: import('node:fs/promises').FileHandle, offset: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, offset + done);
    if (bytesRead === 0) throw new Error(`file ended at ${offset + done} bytes, expected ${offset + length}`);
    done += bytesRead;
  }
  return buffer;
}

/**
 * Uploads a part's segments (one in memory at a time), skipping those already stored with the
 * same size and checksum (an unchanged part, or a run that was interrupted); returns the bytes sent.
 */
export async function uploadPart(driver: StorageDriver, part: StorePart, file: string, ref: PartRef, segmentBytes = STORE_SEGMENT_BYTES): Promise<number> {
  let sent = 0;
  const handle = await open(file, 'r');
  try {
    for (let n = 0; n < ref.segments.length; n++) {
      const key = storeLayout.segment(part, ref.sha256, n);
      const expected = ref.segments[n]!;
      const there = await storedChecksum(driver, key, expected.size);
      if (there?.size === expected.size && there.sha256 === expected.sha256) continue;
      const body = await readSegment(handle, n * segmentBytes, expected.size);
      await driver.put(key, body);
      sent += body.length;
    }
  } finally {
    await handle.close();
  }
  return sent;
}

/** The segments of a part, as (key, size + checksum) pairs for verifyStored. */
export function partObjects(part: StorePart, ref: PartRef): Array<[string, { size: number; sha256: string }]> {
  const under = storedUnder(ref);
  return [
    ...ref.segments.map((segment, n): [string, { size: number; sha256: string }] => [storeLayout.segment(part, under, n), segment]),
    ...(ref.deltas ?? []).flatMap((delta) => deltaObjects(part, under, delta)),
    ...(ref.bridge ? deltaObjects(part, under, ref.bridge.delta) : []),
  ];
}

/**
 * A published store version fails its checks: its manifest or a segment is missing, unreadable or
 * does not match its SHA-256. Such a version is never used (the follower keeps the previous one,
 * restore writes nothing).
 */
export class StoreDamagedError extends OperatorError {}

/** A stored part does not match its manifest (a corrupted or missing object). */
export class PartChecksumError extends StoreDamagedError {}

/**
 * Downloads a part into `file` (written beside it, renamed into place only once whole): every
 * segment is checked against its SHA-256 as it arrives, and the whole file against the part's.
 * Any mismatch: PartChecksumError, and nothing is left at `file`.
 */
export async function downloadPart(driver: StorageDriver, part: StorePart, ref: PartRef, file: string): Promise<number> {
  await mkdir(dirname(file), { recursive: true });
  const temp = tempName(file);
  const handle = await open(temp, 'w');
  const whole = createHash('sha256');
  // A part named by its page root is checked by its pages' hashes (segments are whole pages).
  const pageSize = ref.digest === 'pages' ? ref.pageSize : undefined;
  const hashes = pageSize ? Buffer.alloc(Math.ceil(ref.size / pageSize) * 32) : null;
  let at = 0;
  try {
    for (let n = 0; n < ref.segments.length; n++) {
      const key = storeLayout.segment(part, storedUnder(ref), n);
      const object = await driver.get(key);
      if (!object) throw new PartChecksumError(`${driver.location}/${key} is missing`);
      const expected = ref.segments[n]!;
      if (object.body.length !== expected.size || sha256Hex(object.body) !== expected.sha256) {
        throw new PartChecksumError(`${driver.location}/${key} does not match its SHA-256 in the manifest`);
      }
      if (hashes && pageSize) {
        const body = Buffer.from(object.body.buffer, object.body.byteOffset, object.body.length);
        for (let p = 0; p < body.length; p += pageSize) hashPage(body.subarray(p, p + pageSize), hashes, (at + p) / pageSize);
      } else whole.update(object.body);
      at += object.body.length;
      await handle.write(object.body);
    }
    await handle.sync();
    await handle.close();
    if ((hashes ? pageRoot(hashes) : whole.digest('hex')) !== ref.sha256) throw new PartChecksumError(`${part} part ${ref.sha256}: the whole file does not match its ${hashes ? 'page root' : 'SHA-256'}`);
    await rename(temp, file);
    return ref.size;
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw error;
  }
}

/** True when `file` exists with the part's size and checksum (a cached copy still good). */
export async function hasPart(file: string, ref: PartRef): Promise<boolean> {
  const info = await stat(file).catch(() => null);
  if (!info || info.size !== ref.size) return false;
  if (ref.digest === 'pages' && ref.pageSize) return (await pageRootOf(file, ref.pageSize)) === ref.sha256;
  return (await sha256OfFile(file)).sha256 === ref.sha256;
}
