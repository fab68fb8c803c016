import { pack as msgpack, unpack as msgunpack } from 'msgpackr';
import xxhash from 'xxhash-wasm';
import type { CatalogEntry } from '../catalog.ts';
import { layout } from '../layout.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { CARD_HASHES_FILE } from './layout.ts';

/** Bytes of each card's content hash: 64 bits, so that 100,000 cards never collide in practice. */
export const CARD_HASH_BYTES = 8;

/** Every card id of a version (sorted, as the entries are) and a hash of each card's served content. */
export interface CardHashes {
  ids: string[];
  /** CARD_HASH_BYTES per card, in the order of `ids`. */
  hashes: Buffer;
}

let hasher: ReturnType<typeof xxhash> | undefined;

/**
 * The content hash of each entry: its full card and its hit, as served (not timestamps). XXH64
 * (xxhash-wasm), not SHA-256: nothing adversarial is at stake (the build's own input is compared
 * with its previous input), and a hash object per card made SHA-256 cost seconds per 100,000
 * cards; XXH64 of the hit seeds XXH64 of the card.
 */
export async function cardHashes(entries: readonly CatalogEntry[]): Promise<CardHashes> {
  const { h64Raw } = await (hasher ??= xxhash());
  const hashes = Buffer.allocUnsafe(entries.length * CARD_HASH_BYTES);
  entries.forEach((entry, i) => hashes.writeBigUInt64BE(h64Raw(entry.card, h64Raw(entry.hit, 0n)), i * CARD_HASH_BYTES));
  return { ids: entries.map((entry) => entry.id), hashes };
}

export function encodeCardHashes(value: CardHashes): Uint8Array {
  return msgpack({ v: 1, ids: value.ids, hashes: value.hashes });
}

export function decodeCardHashes(bytes: Uint8Array): CardHashes {
  const wire = msgunpack(bytes) as { v: number; ids: string[]; hashes: Uint8Array };
  if (wire.v !== 1 || !Array.isArray(wire.ids) || wire.hashes.length !== wire.ids.length * CARD_HASH_BYTES) {
    throw new Error('not a card hashes file of format 1');
  }
  return { ids: wire.ids, hashes: Buffer.from(wire.hashes) };
}

/** The card hashes of a version, or null when it has none (built before change records, or deleted). */
export async function readCardHashes(driver: StorageDriver, game: string, version: string): Promise<CardHashes | null> {
  const object = await driver.get(layout.file(game, version, CARD_HASHES_FILE));
  if (!object) return null;
  try {
    return decodeCardHashes(object.body);
  } catch {
    return null;
  }
}
