import { hash } from 'node:crypto';
import { copyFile, open, rename, rm } from 'node:fs/promises';
import { sha256Hex, type StorageDriver } from '@snapdeck/snapshot';
import type { DeltaRef, PartRef, StorePart } from './layout.ts';
import { readFully, spoolDeltas } from './page-delta.ts';
import { PartChecksumError } from './parts.ts';

/**
 * Page hashes (issue 20): the SHA-256 of every page of a part file, 32 bytes each, in order; and
 * their root, the SHA-256 of them all. The manifest names the root of each decks part. A gateway
 * keeps the page hashes of the file it serves (computed once from a file that matched its SHA-256),
 * so a delta is applied without reading the file: the served file is copied by the kernel
 * (copy_file_range), the changed pages are written over it and hashed, and the root of the
 * resulting hashes must be the manifest's. Every page of the new file is thereby checked: a
 * changed one by its hash, an unchanged one as a copy of a checked page of the served file.
 * At a million decks this replaces a pass that read, hashed and wrote 1.17 GB per import.
 */
const HASH = 32;

/** A file made from another plus deltas: the bytes downloaded, its page hashes, the pages the deltas changed. */
export interface Patched {
  downloaded: number;
  hashes: Buffer;
  changed: number[];
}

export const pageRoot = (hashes: Buffer): string => sha256Hex(hashes);

export function hashPage(page: Buffer, into: Buffer, n: number): void {
  (hash('sha256', page, 'buffer') as Buffer).copy(into, n * HASH);
}

/** The page hashes of `file`, read in blocks of 4 MiB. */
export async function pageHashesOf(file: string, pageSize: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const hashes = Buffer.alloc(Math.ceil(size / pageSize) * HASH);
    const block = Buffer.alloc(1024 * pageSize);
    for (let offset = 0; offset < size; offset += block.length) {
      const length = Math.min(block.length, size - offset);
      await readFully(handle, block.subarray(0, length), offset);
      for (let at = 0; at < length; at += pageSize) hashPage(block.subarray(at, Math.min(at + pageSize, length)), hashes, (offset + at) / pageSize);
    }
    return hashes;
  } finally {
    await handle.close();
  }
}

/**
 * Writes `to`: the file `have` (whose page hashes are `hashes`) with `deltas` applied, checked
 * against `ref.pageRoot`. Returns the bytes downloaded and the new file's page hashes. A mismatch:
 * PartChecksumError, nothing left at `to`.
 */
export async function patchCopy(
  driver: StorageDriver, part: StorePart, under: string, deltas: DeltaRef[], have: { file: string; hashes: Buffer }, to: string, ref: PartRef & { pageSize: number; pageRoot: string },
): Promise<Patched> {
  let downloaded = 0;
  const spoolFile = `${to}.spool`;
  const spool = await open(spoolFile, 'w+');
  try {
    const { pages, pageSize } = await spoolDeltas(driver, part, under, deltas, spool, (bytes) => (downloaded += bytes));
    if (pageSize !== ref.pageSize || ref.size % pageSize !== 0) throw new PartChecksumError(`${part} part ${ref.sha256}: its deltas do not fit a file of ${ref.size} bytes`);
    const count = ref.size / pageSize;
    // Pages past the end of the served file that no delta names are zeros.
    const hashes = resized(have.hashes, count, pageSize);
    await copyFile(have.file, to);
    const target = await open(to, 'r+');
    try {
      await target.truncate(ref.size);
      const page = Buffer.alloc(pageSize);
      for (const [n, at] of [...pages].sort((a, b) => a[0] - b[0])) {
        if (n >= count) continue;
        await readFully(spool, page, at);
        hashPage(page, hashes, n);
        await target.write(page, 0, pageSize, n * pageSize);
      }
    } finally {
      await target.close();
    }
    if (pageRoot(hashes) !== ref.pageRoot) throw new PartChecksumError(`${part} part ${ref.sha256}: the file its deltas make does not match its page hashes`);
    return { downloaded, hashes, changed: [...pages.keys()] };
  } catch (error) {
    await rm(to, { force: true });
    throw error;
  } finally {
    await spool.close();
    await rm(spoolFile, { force: true });
  }
}

/**
 * Patches `spare` in place into `ref` (a file of this part no view uses any more: the one served
 * before the current one): only the pages the deltas name are written, nothing is copied. The
 * spare is renamed to `to` once its page root matches; on any failure it is removed (the file
 * served is untouched either way).
 */
export async function patchInPlace(
  driver: StorageDriver, part: StorePart, under: string, deltas: DeltaRef[], spare: { file: string; hashes: Buffer }, to: string, ref: PartRef & { pageSize: number; pageRoot: string },
  fromServed?: { file: string; pages: number[] },
): Promise<Patched> {
  let downloaded = 0;
  const spoolFile = `${to}.spool`;
  const spool = await open(spoolFile, 'w+');
  try {
    const { pages, pageSize } = await spoolDeltas(driver, part, under, deltas, spool, (bytes) => (downloaded += bytes));
    if (pageSize !== ref.pageSize || ref.size % pageSize !== 0) throw new PartChecksumError(`${part} part ${ref.sha256}: its deltas do not fit a file of ${ref.size} bytes`);
    const hashes = resized(spare.hashes, ref.size / pageSize, pageSize);
    const target = await open(spare.file, 'r+');
    try {
      await target.truncate(ref.size); // pages past the spare's end read as zeros, as `resized` hashed them
      const page = Buffer.alloc(pageSize);
      if (fromServed) {
        // The pages the served file changed from the spare: copied from it, not downloaded again.
        const served = await open(fromServed.file, 'r');
        try {
          for (const n of fromServed.pages) {
            if (n >= hashes.length / HASH || pages.has(n)) continue;
            await readFully(served, page, n * pageSize);
            hashPage(page, hashes, n);
            await target.write(page, 0, pageSize, n * pageSize);
          }
        } finally {
          await served.close();
        }
      }
      for (const [n, at] of [...pages].sort((a, b) => a[0] - b[0])) {
        if (n >= hashes.length / HASH) continue;
        await readFully(spool, page, at);
        hashPage(page, hashes, n);
        await target.write(page, 0, pageSize, n * pageSize);
      }
    } finally {
      await target.close();
    }
    if (pageRoot(hashes) !== ref.pageRoot) throw new PartChecksumError(`${part} part ${ref.sha256}: the file its deltas make does not match its page hashes`);
    await rename(spare.file, to);
    return { downloaded, hashes, changed: [...pages.keys()] };
  } catch (error) {
    await rm(spare.file, { force: true });
    throw error;
  } finally {
    await spool.close();
    await rm(spoolFile, { force: true });
  }
}

/** `hashes` for a file of `count` pages: cut, or extended with the hash of a page of zeros. */
function resized(hashes: Buffer, count: number, pageSize: number): Buffer {
  const out = Buffer.alloc(count * HASH);
  hashes.copy(out, 0, 0, Math.min(hashes.length, out.length));
  if (hashes.length < out.length) {
    const zero = Buffer.alloc(HASH);
    hashPage(Buffer.alloc(pageSize), zero, 0);
    for (let n = hashes.length / HASH; n < count; n++) zero.copy(out, n * HASH);
  }
  return out;
}
