import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { versionTime } from '../layout.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { forEachLimit } from '../storage/inspect.ts';
import { changesPrefix, recordVersion } from './layout.ts';

export const DEFAULT_KEEP_CHANGES_DAYS = OPERATOR_DEFAULTS.keepChangesDays;
const DELETES_IN_FLIGHT = 8;

/**
 * Retention of change records (gc.ts calls it per game): a record older than `keepDays` (by the
 * time in its version id) is deleted, except the current version's. A `since` whose chain to the
 * current version lost a record is then answered 410 (changes/feed.ts). Returns how many were
 * deleted (dry run: would be).
 */
export async function collectChangeRecords(
  driver: StorageDriver, game: string, current: string | null, keepDays: number, now: number, dryRun: boolean,
): Promise<number> {
  const keys = await driver.list(changesPrefix(game));
  const old = keys.filter((key) => {
    const version = recordVersion(game, key);
    const time = version === null ? null : versionTime(version);
    return version !== null && version !== current && time !== null && now - time.getTime() > keepDays * 86_400_000;
  });
  if (!dryRun) await forEachLimit(old, DELETES_IN_FLIGHT, (key) => driver.delete(key));
  return old.length;
}
