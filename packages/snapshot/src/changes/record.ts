import { versionTime } from '../layout.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { CARD_HASH_BYTES, readCardHashes, type CardHashes } from './hashes.ts';
import { changeRecordKey, type ChangeRecord } from './layout.ts';

/** What changed from `before` to `after` (both sorted by id): one merge pass, no map. */
export function diffCardHashes(before: CardHashes, after: CardHashes): Pick<ChangeRecord, 'added' | 'changed' | 'removed'> {
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  let i = 0;
  let j = 0;
  while (i < before.ids.length || j < after.ids.length) {
    const a = before.ids[i];
    const b = after.ids[j];
    if (b === undefined || (a !== undefined && a < b)) {
      removed.push(a!);
      i += 1;
    } else if (a === undefined || b < a) {
      added.push(b);
      j += 1;
    } else {
      const x = i * CARD_HASH_BYTES;
      const y = j * CARD_HASH_BYTES;
      if (before.hashes.compare(after.hashes, y, y + CARD_HASH_BYTES, x, x + CARD_HASH_BYTES) !== 0) changed.push(a);
      i += 1;
      j += 1;
    }
  }
  return { added, changed, removed };
}

/**
 * Writes the change record of `version` (publish-version.ts, before the pointer moves to it):
 * the cards added, changed and removed against `base`, the version current when the build
 * started. When there is no base, or the base has no card hashes (built before change records),
 * the record says `from: null`: nothing before `version` can be synced from incrementally.
 * The bytes follow from the inputs, so a resumed build rewrites the same record.
 */
export async function recordChanges(driver: StorageDriver, game: string, version: string, base: string | null, hashes: CardHashes): Promise<ChangeRecord> {
  const before = base === null ? null : await readCardHashes(driver, game, base);
  const diff = before ? diffCardHashes(before, hashes) : { added: [], changed: [], removed: [] };
  const record: ChangeRecord = {
    format: 1, game, version, from: before ? base : null, createdAt: versionTime(version)!.toISOString(), ...diff,
  };
  await driver.put(changeRecordKey(game, version), Buffer.from(JSON.stringify(record)), { contentType: 'application/json' });
  return record;
}
