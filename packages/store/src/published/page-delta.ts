import { createHash } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { deflateRaw, inflateRawSync } from 'node:zlib';
import { sha256Hex, type StorageDriver } from '@snapdeck/snapshot';
import { deltaObjects, type DeltaRef, type StorePart } from './layout.ts';
import { hashPage, pageRoot } from './page-root.ts';
import { PartChecksumError } from './parts.ts';

/**
 * Page deltas of a part file (a deck change costs what changed): the pages of a SQLite file that
 * differ from the file before, cut in pieces of at most DELTA_PIECE_BYTES, each stored as its own
 * content-addressed object. A piece is
 *
 *   'SDPDELT1' | page size (u32 LE) | page count n (u32 LE) | size of the resulting file (u64 LE)
 *   | n page numbers (u32 LE, 0-based) | n pages
 *
 * stored deflated (raw DEFLATE, level 1).
 *
 * Applying deltas to a file never changes it: a new file is written beside it in one pass (the
 * old file's pages, with the changed ones taken from the pieces), hashed as it is written, and
 * refused unless it matches the SHA-256 the manifest names. Every piece is checked against its
 * own SHA-256 as it arrives, before a byte of it is used.
 */
const MAGIC = Buffer.from('SDPDELT1', 'latin1');
const HEADER = 24;
/** A piece is one object of at most this many bytes (one storage read, well inside the poll timeout). */
export const DELTA_PIECE_BYTES = 4 * 1024 * 1024;
/** Pages read, patched, hashed and written at a time when applying. */
const BLOCK_PAGES = 1024;

const deflated = promisify(deflateRaw);

/**
 * Encodes the changed pages (ascending page numbers; `page(n)` reads one) into pieces, deflated
 * two at a time on libuv's thread pool while the next is filled: deflate was the writer's largest
 * cost per import (275 of ~700 ms of CPU for 100 decks into 300,000, one piece after the other),
 * and a piece is filled and deflated before the next is made, so memory holds no second copy of
 * the delta (1,000 decks into 1,000,000: ~60 MB of pages).
 */
export async function encodeDelta(pageSize: number, resultSize: number, changed: number[], page: (n: number) => Buffer): Promise<Buffer[]> {
  const perPiece = Math.max(1, Math.floor((DELTA_PIECE_BYTES - HEADER) / (pageSize + 4)));
  const pieces: Array<Promise<Buffer>> = [];
  for (let start = 0; start < changed.length || pieces.length === 0; start += perPiece) {
    const numbers = changed.slice(start, start + perPiece);
    const piece = Buffer.alloc(HEADER + numbers.length * (4 + pageSize));
    MAGIC.copy(piece, 0);
    piece.writeUInt32LE(pageSize, 8);
    piece.writeUInt32LE(numbers.length, 12);
    piece.writeBigUInt64LE(BigInt(resultSize), 16);
    numbers.forEach((n, i) => {
      piece.writeUInt32LE(n, HEADER + i * 4);
      page(n).copy(piece, HEADER + numbers.length * 4 + i * pageSize);
    });
    // Stored deflated (level 1: fast): SQLite pages are text and zero-filled free space (measured
    // 2-3x smaller); the SHA-256 in the manifest is that of the stored bytes.
    pieces.push(deflated(piece, { level: 1 }));
    if (pieces.length >= 2) await pieces[pieces.length - 2];
  }
  return Promise.all(pieces);
}

/** The delta's reference for a manifest: its pieces' sizes and checksums, and the file it makes. */
export function deltaRefOf(pieces: Buffer[], result: { sha256: string; size: number }): DeltaRef {
  return { pieces: pieces.map((piece) => ({ size: piece.length, sha256: sha256Hex(piece) })), result };
}

/**
 * Downloads the pieces of `deltas` (each checked) into `spool`, and returns where each page's
 * newest content is there (later deltas win) and the page size. Bytes downloaded go to `counted`.
 */
export async function spoolDeltas(driver: StorageDriver, part: StorePart, baseSha256: string, deltas: DeltaRef[], spool: FileHandle, counted: (bytes: number) => void): Promise<{ pages: Map<number, number>; pageSize: number }> {
  const pages = new Map<number, number>();
  let pageSize = 0;
  let at = 0;
  for (const delta of deltas) {
    for (const [key, expected] of deltaObjects(part, baseSha256, delta)) {
      const object = await driver.get(key);
      if (!object) throw new PartChecksumError(`${driver.location}/${key} is missing`);
      counted(object.body.length);
      if (object.body.length !== expected.size || sha256Hex(object.body) !== expected.sha256) throw new PartChecksumError(`${driver.location}/${key} does not match its SHA-256 in the manifest`);
      let body: Buffer;
      try {
        body = inflateRawSync(object.body, { maxOutputLength: DELTA_PIECE_BYTES });
      } catch (error) {
        throw new PartChecksumError(`${driver.location}/${key} is not a page delta`, { cause: error });
      }
      if (body.length < HEADER || !body.subarray(0, 8).equals(MAGIC)) throw new PartChecksumError(`${driver.location}/${key} is not a page delta`);
      const size = body.readUInt32LE(8);
      const count = body.readUInt32LE(12);
      if ((pageSize !== 0 && size !== pageSize) || size < 512 || body.length !== HEADER + count * (4 + size)) throw new PartChecksumError(`${driver.location}/${key}: inconsistent page delta`);
      pageSize = size;
      await spool.write(body, 0, body.length, at);
      for (let i = 0; i < count; i++) pages.set(body.readUInt32LE(HEADER + i * 4), at + HEADER + count * 4 + i * size);
      at += body.length;
    }
  }
  return { pages, pageSize };
}

/**
 * Writes `to`: the file `from` with `deltas` applied (pieces under partPrefix(baseSha256)), checked
 * against `result` (size and SHA-256). Returns the bytes downloaded. Any mismatch:
 * PartChecksumError, and nothing is left at `to`.
 */
export async function applyDeltas(
  driver: StorageDriver, part: StorePart, baseSha256: string, deltas: DeltaRef[], from: string, to: string, result: { sha256: string; size: number; digest?: 'pages' },
): Promise<number> {
  let downloaded = 0;
  const spoolFile = `${to}.spool`;
  const spool = await open(spoolFile, 'w+');
  const source = await open(from, 'r');
  const target = await open(to, 'w');
  try {
    const { pages, pageSize } = await spoolDeltas(driver, part, baseSha256, deltas, spool, (bytes) => (downloaded += bytes));
    if (pageSize === 0 || result.size % pageSize !== 0) throw new PartChecksumError(`${part} part ${result.sha256}: its deltas do not fit a file of ${result.size} bytes`);
    const sourceSize = (await source.stat()).size;
    const whole = createHash('sha256');
    // A result named by its page root (digest 'pages') is checked by its pages' hashes.
    const hashes = result.digest === 'pages' ? Buffer.alloc((result.size / pageSize) * 32) : null;
    const block = Buffer.alloc(BLOCK_PAGES * pageSize);
    for (let offset = 0; offset < result.size; offset += block.length) {
      const length = Math.min(block.length, result.size - offset);
      const buffer = block.subarray(0, length);
      buffer.fill(0);
      if (offset < sourceSize) await readFully(source, buffer.subarray(0, Math.min(length, sourceSize - offset)), offset);
      const first = offset / pageSize;
      for (let n = first; n < first + length / pageSize; n++) {
        const at = pages.get(n);
        if (at !== undefined) await readFully(spool, buffer.subarray((n - first) * pageSize, (n - first + 1) * pageSize), at);
      }
      if (hashes) for (let at = 0; at < length; at += pageSize) hashPage(buffer.subarray(at, at + pageSize), hashes, (offset + at) / pageSize);
      else whole.update(buffer);
      await target.write(buffer, 0, length, offset);
    }
    if ((hashes ? pageRoot(hashes) : whole.digest('hex')) !== result.sha256) throw new PartChecksumError(`${part} part ${result.sha256}: the file its deltas make does not match its SHA-256`);
    await target.close();
    return downloaded;
  } catch (error) {
    await target.close().catch(() => {});
    await rm(to, { force: true });
    throw error;
  } finally {
    await source.close();
    await spool.close();
    await rm(spoolFile, { force: true });
  }
}

export async function readFully(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < buffer.length) {
    const { bytesRead } = await handle.read(buffer, done, buffer.length - done, position + done);
    if (bytesRead === 0) throw new Error(`file ended at ${position + done}`);
    done += bytesRead;
  }
}
