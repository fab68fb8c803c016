import { readSync, writeSync } from 'node:fs';
import { copyFile, open, rename, rm } from 'node:fs/promises';
import type { StorageDriver } from '@snapdeck/snapshot';
import type { DeltaRef, PartRef, StorePart } from './layout.ts';
import { spoolDeltas } from './page-delta.ts';
import { hashPage, pageRoot } from './page-root.ts';
import { PartChecksumError } from './parts.ts';

export { hashPage, pageHashesOf, pageRoot } from './page-root.ts';

/**
 * Page hashes (for deck deltas): the SHA-256 of every page of a part file, 32 bytes each, in order; and
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
      await copyPages(spool.fd, target.fd, [...pages].filter(([n]) => n < count), pageSize, hashes);
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
      const count = hashes.length / HASH;
      if (fromServed) {
        // The pages the served file changed from the spare: copied from it, not downloaded again.
        const served = await open(fromServed.file, 'r');
        try {
          const wanted = fromServed.pages.filter((n) => n < count && !pages.has(n)).map((n): [number, number] => [n, n * pageSize]);
          await copyPages(served.fd, target.fd, wanted, pageSize, hashes);
        } finally {
          await served.close();
        }
      }
      await copyPages(spool.fd, target.fd, [...pages].filter(([n]) => n < count), pageSize, hashes);
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

/**
 * Copies pages (page number, offset in `from`) to their place in `to`, hashing each into `hashes`.
 * Synchronous reads and writes in batches of 256 pages, yielding between batches: an import of
 * 1,000 decks changes ~15,000 pages, and one awaited read and write per page (a thread-pool hop
 * each) took 6-11 s at a million decks under load.
 */
async function copyPages(from: number, to: number, list: Array<[number, number]>, pageSize: number, hashes: Buffer): Promise<void> {
  const page = Buffer.alloc(pageSize);
  list.sort((a, b) => a[0] - b[0]);
  for (let i = 0; i < list.length; i++) {
    const [n, at] = list[i]!;
    for (let done = 0; done < pageSize; ) {
      const read = readSync(from, page, done, pageSize - done, at + done);
      if (read === 0) throw new Error(`file ended at ${at + done}`);
      done += read;
    }
    hashPage(page, hashes, n);
    for (let done = 0; done < pageSize; ) done += writeSync(to, page, done, pageSize - done, n * pageSize + done);
    if (i % 256 === 255) await new Promise((resolve) => setImmediate(resolve));
  }
}
