import { createHash } from 'node:crypto';

/**
 * SHA-256 as lowercase hex: the one spelling of the checksum that manifests, stored-object
 * metadata, content-addressed store parts and key hashes use.
 */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A SHA-256 in hex, as `sha256Hex` writes it. */
export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;
