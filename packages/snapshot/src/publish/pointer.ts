/**
 * Moving a `current.json` pointer with compare-and-swap: the last step of every kind of publish
 * (card snapshots in publish-version.ts, the keys/tokens/decks store in @snapdeck/store).
 * Immutable files first, verified (verifyStored), the pointer last: a reader following the
 * pointer (readPointer) never sees a version that is not whole.
 */
import type { Pointer } from '../layout.ts';
import { readPointer } from '../reader/pointer.ts';
import { PreconditionFailedError, type StorageDriver } from '../storage/driver.ts';

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
