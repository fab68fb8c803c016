import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/**
 * SHA-256 as lowercase hex: the one spelling of the checksum that manifests, stored-object
 * metadata, content-addressed store parts and key hashes use.
 */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 (hex) and size of a file, read as a stream (segments and store parts can be large). */
export async function sha256OfFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

/** A SHA-256 in hex, as `sha256Hex` writes it. */
export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;
