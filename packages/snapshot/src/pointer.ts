/**
 * The publish machinery every kind of published data shares (card snapshots in publish.ts, the
 * keys/tokens/decks store in @snapdeck/store): checksums, verifying what was written against
 * what was meant to be written, and moving a `current.json` pointer with compare-and-swap.
 * Immutable files first, verified, the pointer last: a reader following the pointer never sees a
 * version that is not whole.
 */
import type { Pointer } from './layout.ts';
import { readPointer } from './reader/pointer.ts';
import { PreconditionFailedError, type StorageDriver } from './storage/driver.ts';
import { forEachLimit, storedChecksum } from './storage/inspect.ts';

/** The pointer moved (or was created) by someone else between the read and the swap. */
export class PointerMovedError extends Error {
  constructor(readonly key: string, readonly found: string | null) {
    super(`${key} was changed by another writer (it now names ${found ?? 'nothing'})`);
    this.name = 'PointerMovedError';
  }
}

/**
 * Points `key` at `version`, only if the pointer is still `base` (its etag; null: only if there is
 * no pointer yet). A lost answer to our own successful write (the retry is then refused) is told
 * apart by reading the pointer again: when it names `version`, the swap happened.
 */
export async function swapPointer(
  driver: StorageDriver, key: string, version: string, base: { etag: string } | null,
): Promise<void> {
  const pointer: Pointer = { version, publishedAt: new Date().toISOString() };
  try {
    await driver.put(key, Buffer.from(JSON.stringify(pointer)), {
      contentType: 'application/json',
      ...(base ? { ifMatch: base.etag } : { ifNoneMatch: '*' as const }),
    });
  } catch (error) {
    if (!(error instanceof PreconditionFailedError)) throw error;
    const now = await readPointer(driver, key).catch(() => null);
    if (now?.version !== version) throw new PointerMovedError(key, now?.version ?? null);
  }
}

/**
 * Checks every object in storage against its expected size and SHA-256 (the driver's stored
 * checksum when it has one, else the bytes, hashed); the problems found, sorted (none: all good).
 */
export async function verifyStored(driver: StorageDriver, expected: ReadonlyArray<readonly [string, { size: number; sha256: string }]>, inFlight = 8): Promise<string[]> {
  const problems: string[] = [];
  await forEachLimit(expected, inFlight, async ([key, file]) => {
    const found = await storedChecksum(driver, key, file.size);
    if (!found) problems.push(`${key} is missing`);
    else if (found.size !== file.size) problems.push(`${key} has ${found.size} bytes, the manifest says ${file.size}`);
    else if (found.sha256 !== file.sha256) problems.push(`${key} does not match its SHA-256 in the manifest`);
  });
  return problems.sort();
}
