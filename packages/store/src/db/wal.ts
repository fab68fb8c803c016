import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { heldDescriptor } from './held-files.ts';

/**
 * Reading a WAL database's own account of what it wrote: the `-shm` wal-index header and the
 * `-wal` file's frames (https://sqlite.org/walformat.html, https://sqlite.org/fileformat2.html#the_write_ahead_log).
 * Hand-written because nothing in the SQLite build better-sqlite3 ships exposes WAL frames (no
 * sqlite_dbpage, no file control); the format is SQLite's stable, documented on-disk format, and
 * every frame used is checked the way SQLite's own recovery checks it (salts and the cumulative
 * checksum), against the header SQLite's readers use.
 *
 * Callers read these only while holding the database's write lock (BEGIN IMMEDIATE): then no
 * frame can be added, the log cannot restart, and the wal-index header cannot change.
 */

/** A WAL generation: the salts SQLite draws each time the log restarts (salt-1 + 1, salt-2 random). */
export interface WalSalts {
  salt1: number;
  salt2: number;
}

/** The wal-index header (either copy; both must agree): the newest commit SQLite's readers see. */
export interface WalIndexHeader extends WalSalts {
  pageSize: number;
  /** Frames of committed transactions in the log (frame numbers start at 1). */
  mxFrame: number;
  /** Size of the database in pages at that commit. */
  nPage: number;
  /** Cumulative checksum of the frame mxFrame. */
  cksum1: number;
  cksum2: number;
  /** Frames already copied back into the database file. */
  nBackfill: number;
}

/** The wal-index header's size, and (below) the format version its first field names: https://sqlite.org/walformat.html. */
export const INDEX_HEADER_BYTES = 48;
const CKPT_INFO_BYTES = 40;
export const WAL_VERSION = 3007000;
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const MAGIC_LE = 0x377f0682;
const MAGIC_BE = 0x377f0683;

/** Bytes of a `-shm` file, through a descriptor kept open (held-files.ts: closing one would drop SQLite's locks). */
function readAt(file: string, length: number, position: number): Buffer | null {
  const fd = heldDescriptor(file);
  if (fd === null) return null;
  const buffer = Buffer.alloc(length);
  return readSync(fd, buffer, 0, length, position) === length ? buffer : null;
}

/** SQLite's WAL checksum over `data` (an even number of 32-bit words), continuing from `s`. */
export function walChecksum(data: Buffer, bigEndian: boolean, s: [number, number]): [number, number] {
  let s0 = s[0];
  let s1 = s[1];
  if (bigEndian === (endianness() === 'BE') && data.byteOffset % 4 === 0) {
    // Words in this machine's order (SQLite writes its WALs so): read as such, ~10x faster.
    const words = new Uint32Array(data.buffer, data.byteOffset, data.length / 4);
    for (let i = 0; i < words.length; i += 2) {
      s0 = (s0 + words[i]! + s1) >>> 0;
      s1 = (s1 + words[i + 1]! + s0) >>> 0;
    }
    return [s0, s1];
  }
  const read = bigEndian ? (at: number) => data.readUInt32BE(at) : (at: number) => data.readUInt32LE(at);
  for (let at = 0; at < data.length; at += 8) {
    s0 = (s0 + read(at) + s1) >>> 0;
    s1 = (s1 + read(at + 4) + s0) >>> 0;
  }
  return [s0, s1];
}

/** The wal-index header in `shm`, or null when there is none SQLite would trust (missing, uninitialised, torn). */
export function readWalIndexHeader(shm: string): WalIndexHeader | null {
  const bytes = readAt(shm, 2 * INDEX_HEADER_BYTES + CKPT_INFO_BYTES, 0);
  if (!bytes) return null;
  const copy = bytes.subarray(0, INDEX_HEADER_BYTES);
  if (!copy.equals(bytes.subarray(INDEX_HEADER_BYTES, 2 * INDEX_HEADER_BYTES))) return null;
  const native = endianness() === 'BE';
  const u32 = (at: number) => (native ? copy.readUInt32BE(at) : copy.readUInt32LE(at));
  if (u32(0) !== WAL_VERSION || copy[12] !== 1) return null;
  const [c1, c2] = walChecksum(copy.subarray(0, 40), native, [0, 0]);
  if (c1 !== u32(40) || c2 !== u32(44)) return null;
  const size = native ? copy.readUInt16BE(14) : copy.readUInt16LE(14);
  const nBackfill = native ? bytes.readUInt32BE(96) : bytes.readUInt32LE(96);
  // The salts are the WAL header's bytes, copied as they are (big-endian).
  return { pageSize: size === 1 ? 65536 : size, mxFrame: u32(16), nPage: u32(20), cksum1: u32(24), cksum2: u32(28), salt1: copy.readUInt32BE(32), salt2: copy.readUInt32BE(36), nBackfill };
}

/** The committed frames of one WAL generation, as read and checked. */
export interface WalFrames extends WalSalts {
  /** Page number of frame i + 1. */
  pages: Uint32Array;
  /** Cumulative checksum after frame i + 1 (two words each). */
  cksums: Uint32Array;
  pageSize: number;
}

export class WalFormatError extends Error {}

/**
 * Reads and checks frames 1..header.mxFrame of `wal`: the WAL header's own checksum and salts must
 * be the wal-index header's, every frame must carry those salts and continue the checksum chain,
 * and frame mxFrame must be a commit whose checksum and database size are the header's. Anything
 * else: WalFormatError (the caller falls back to comparing every page).
 */
export function readWalFrames(wal: string, header: WalIndexHeader): WalFrames {
  const frames: WalFrames = { salt1: header.salt1, salt2: header.salt2, pageSize: header.pageSize, pages: new Uint32Array(header.mxFrame), cksums: new Uint32Array(2 * header.mxFrame) };
  if (header.mxFrame === 0) return frames;
  let fd: number;
  try {
    // SQLite takes no lock on the -wal file itself (its locks are on the database and -shm files).
    fd = openSync(wal, 'r');
  } catch (error) {
    throw new WalFormatError(`no WAL file at ${wal}`, { cause: error });
  }
  try {
    const head = Buffer.alloc(WAL_HEADER_BYTES);
    if (readSync(fd, head, 0, WAL_HEADER_BYTES, 0) !== WAL_HEADER_BYTES) throw new WalFormatError('WAL header missing');
    const magic = head.readUInt32BE(0);
    if (magic !== MAGIC_LE && magic !== MAGIC_BE) throw new WalFormatError('not a WAL file');
    const bigEndian = magic === MAGIC_BE;
    let sum = walChecksum(head.subarray(0, 24), bigEndian, [0, 0]);
    if (head.readUInt32BE(4) !== WAL_VERSION || head.readUInt32BE(8) !== header.pageSize % 65536 || sum[0] !== head.readUInt32BE(24) || sum[1] !== head.readUInt32BE(28)) throw new WalFormatError('WAL header does not check');
    if (head.readUInt32BE(16) !== header.salt1 || head.readUInt32BE(20) !== header.salt2) throw new WalFormatError('WAL header salts are not the wal-index header’s');
    const frameBytes = FRAME_HEADER_BYTES + header.pageSize;
    const perBlock = Math.max(1, Math.floor((4 << 20) / frameBytes));
    // No bigger than the frames there are: a publish of a small import reads a few frames, and a
    // zero-filled 4 MiB block for them cost more than the reads.
    const block = Buffer.alloc(Math.min(perBlock, header.mxFrame) * frameBytes);
    let size = 0;
    for (let first = 0; first < header.mxFrame; first += perBlock) {
      const count = Math.min(perBlock, header.mxFrame - first);
      const length = count * frameBytes;
      if (readSync(fd, block, 0, length, WAL_HEADER_BYTES + first * frameBytes) !== length) throw new WalFormatError(`WAL ends before frame ${header.mxFrame}`);
      for (let i = 0; i < count; i++) {
        const frame = block.subarray(i * frameBytes, (i + 1) * frameBytes);
        if (frame.readUInt32BE(8) !== header.salt1 || frame.readUInt32BE(12) !== header.salt2) throw new WalFormatError(`frame ${first + i + 1} is not of this WAL generation`);
        sum = walChecksum(frame.subarray(0, 8), bigEndian, sum);
        sum = walChecksum(frame.subarray(FRAME_HEADER_BYTES), bigEndian, sum);
        if (sum[0] !== frame.readUInt32BE(16) || sum[1] !== frame.readUInt32BE(20)) throw new WalFormatError(`frame ${first + i + 1} fails its checksum`);
        frames.pages[first + i] = frame.readUInt32BE(0);
        frames.cksums[2 * (first + i)] = sum[0];
        frames.cksums[2 * (first + i) + 1] = sum[1];
        size = frame.readUInt32BE(4);
      }
    }
    const last = header.mxFrame - 1;
    if (size !== header.nPage || frames.cksums[2 * last] !== header.cksum1 || frames.cksums[2 * last + 1] !== header.cksum2) throw new WalFormatError('the last committed frame is not the one the wal-index header names');
    return frames;
  } finally {
    closeSync(fd);
  }
}

/** Byte offset of frame `n`'s page in the WAL (frames numbered from 1). */
export const framePageOffset = (n: number, pageSize: number) => WAL_HEADER_BYTES + (n - 1) * (FRAME_HEADER_BYTES + pageSize) + FRAME_HEADER_BYTES;
