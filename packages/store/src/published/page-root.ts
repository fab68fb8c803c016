import { hash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { sha256Hex } from '@snapdeck/snapshot';

/** Page hashes and the page root (page-hashes.ts explains them): SHA-256 of each page, and of them all. */
const HASH = 32;

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
      for (let done = 0; done < length; ) {
        const { bytesRead } = await handle.read(block, done, length - done, offset + done);
        if (bytesRead === 0) throw new Error(`file ended at ${offset + done}`);
        done += bytesRead;
      }
      for (let at = 0; at < length; at += pageSize) hashPage(block.subarray(at, Math.min(at + pageSize, length)), hashes, (offset + at) / pageSize);
    }
    return hashes;
  } finally {
    await handle.close();
  }
}


/** The page root of `file` (page size `pageSize`): what names a part whose digest is 'pages'. */
export async function pageRootOf(file: string, pageSize: number): Promise<string> {
  return pageRoot(await pageHashesOf(file, pageSize));
}
