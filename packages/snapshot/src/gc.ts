import { OperatorError, GAME_SLUGS, isGameSlug } from '@snapdeck/contract';
import { VERSION_PATTERN, buildClaimsPrefix, layout, versionTime } from './layout.ts';
import { claimedVersion } from './publish/claim.ts';
import { InvalidPointerError, readPointer } from './reader/pointer.ts';
import type { StorageDriver } from './storage/driver.ts';
import { forEachLimit, listSizes } from './storage/inspect.ts';
import { DEFAULT_KEEP_CHANGES_DAYS, collectChangeRecords } from './changes/gc.ts';

/**
 * Retention of snapshot versions. Per game, a version is deleted (every file of it) only when it
 * is not the current one, not among the `keep` newest versions, and older than `minAgeHours`
 * (by the time in its id). The age floor also protects builds in progress and lets walks on a
 * replaced version finish: a cursor of a deleted version gets 400 `Invalid cursor`.
 *
 * A version's manifest is deleted first, so a gateway stops loading it (and notices it is gone)
 * before its other files go; a gc interrupted half-way leaves a folder without a manifest, which
 * the next gc deletes. Build claims (`_snapdeck/builds/<game>/`) that name a deleted version, or
 * a version with no files that is past the age floor, are deleted too. On a store whose driver
 * has `removeStaleTemporaries` (a local folder), temporary files that killed writers left anywhere
 * under the location, untouched for TEMPORARY_MAX_AGE_MS, are removed as well.
 */
export interface GcOptions {
  storage: StorageDriver;
  /** Games to collect; default: every public game. */
  games?: readonly string[];
  /** Newest versions kept per game (the current one is kept in any case). Default 3. */
  keep?: number;
  /** Versions younger than this many hours are kept. Default 48. */
  minAgeHours?: number;
  /** Card change records (changes/) older than this many days are deleted. Default 30. */
  keepChangesDays?: number;
  /** Decide and report, delete nothing. */
  dryRun?: boolean;
  now?: Date;
  /** Called for each version as soon as it is decided (before its files are deleted). */
  onDecision?: (decision: GcDecision) => void;
}

export interface GcDecision {
  game: string;
  version: string;
  action: 'keep' | 'delete';
  /** Why it is kept ('current', 'among the 3 newest', 'younger than 48 h'), or why deleted. */
  reasons: string[];
  files: number;
  bytes: number;
  /** It has a manifest (a complete version, or one whose deletion has not started). */
  complete: boolean;
}

export interface GcResult {
  decisions: GcDecision[];
  deletedVersions: number;
  deletedFiles: number;
  deletedBytes: number;
  deletedClaims: number;
  /** Card change records past keepChangesDays, removed (or, dry run, found). */
  deletedChangeRecords: number;
  /** Temporary files left by killed writers (local folders only), removed (or, dry run, found). */
  deletedTemporaries: number;
  deletedTemporaryBytes: number;
  dryRun: boolean;
}

export class GcUsageError extends OperatorError {}

export const DEFAULT_GC_KEEP = 3;
export const DEFAULT_GC_MIN_AGE_HOURS = 48;
const DELETES_IN_FLIGHT = 8;
/** A temporary file untouched this long belongs to no live writer (they rename theirs at once). */
export const TEMPORARY_MAX_AGE_MS = 3600_000;

async function currentVersion(driver: StorageDriver, game: string): Promise<string | null> {
  try {
    return (await readPointer(driver, layout.pointer(game)))?.version ?? null;
  } catch (error) {
    if (!(error instanceof InvalidPointerError)) throw error;
    throw new Error(`${driver.location}/${layout.pointer(game)} cannot be read (${((error.cause ?? error) as Error).message}); nothing of ${game} was deleted`, { cause: error });
  }
}

export async function collectGarbage(options: GcOptions): Promise<GcResult> {
  const driver = options.storage;
  const keep = options.keep ?? DEFAULT_GC_KEEP;
  const minAgeHours = options.minAgeHours ?? DEFAULT_GC_MIN_AGE_HOURS;
  if (!Number.isInteger(keep) || keep < 0) throw new GcUsageError(`keep must be a whole number >= 0, not ${keep}`);
  const keepChangesDays = options.keepChangesDays ?? DEFAULT_KEEP_CHANGES_DAYS;
  if (!Number.isFinite(keepChangesDays) || keepChangesDays < 0) throw new GcUsageError(`keepChangesDays must be a number >= 0, not ${keepChangesDays}`);
  if (!Number.isFinite(minAgeHours) || minAgeHours < 0) throw new GcUsageError(`minAgeHours must be a number >= 0, not ${minAgeHours}`);
  const games = options.games && options.games.length > 0 ? [...new Set(options.games)] : [...GAME_SLUGS];
  for (const game of games) {
    if (!isGameSlug(game)) throw new GcUsageError(`unknown game ${JSON.stringify(game)}; public games are ${GAME_SLUGS.join(', ')}`);
  }
  const now = (options.now ?? new Date()).getTime();
  const minAgeMs = minAgeHours * 3600_000;
  const result: GcResult = {
    decisions: [], deletedVersions: 0, deletedFiles: 0, deletedBytes: 0, deletedClaims: 0, deletedChangeRecords: 0, deletedTemporaries: 0, deletedTemporaryBytes: 0,
    dryRun: options.dryRun === true,
  };

  for (const game of games) {
    const current = await currentVersion(driver, game);
    const prefix = layout.versionsPrefix(game);
    const byVersion = new Map<string, Map<string, number>>();
    for (const [key, size] of await listSizes(driver, prefix)) {
      const version = key.slice(prefix.length).split('/')[0]!;
      let files = byVersion.get(version);
      if (!files) byVersion.set(version, (files = new Map()));
      files.set(key, size);
    }
    const versions = [...byVersion.keys()].sort().reverse(); // newest first: ids sort by time
    const deleted = new Set<string>();
    for (const [rank, version] of versions.entries()) {
      const files = byVersion.get(version)!;
      const time = VERSION_PATTERN.test(version) ? versionTime(version) : null;
      const reasons: string[] = [];
      if (time === null) reasons.push('not a version folder (left alone)');
      if (version === current) reasons.push('current');
      if (rank < keep) reasons.push(`among the ${keep} newest`);
      if (time !== null && now - time.getTime() < minAgeMs) reasons.push(`younger than ${minAgeHours} h`);
      // A build may have made it current since the pointer was read: look again, right before.
      if (reasons.length === 0 && !options.dryRun && (await currentVersion(driver, game)) === version) {
        reasons.push('became current while gc was running');
      }
      const action = reasons.length > 0 ? 'keep' : 'delete';
      if (action === 'delete') {
        const age = time ? ((now - time.getTime()) / 3600_000).toFixed(1) : '?';
        reasons.push(`older than ${minAgeHours} h (${age} h), not current, not among the ${keep} newest`);
      }
      const manifestKey = layout.manifest(game, version);
      const decision: GcDecision = {
        game, version, action, reasons,
        files: files.size,
        bytes: [...files.values()].reduce((a, b) => a + b, 0),
        complete: files.has(manifestKey),
      };
      result.decisions.push(decision);
      options.onDecision?.(decision);
      if (action !== 'delete') continue;
      deleted.add(version);
      result.deletedVersions += 1;
      result.deletedFiles += decision.files;
      result.deletedBytes += decision.bytes;
      if (options.dryRun) continue;
      if (files.has(manifestKey)) await driver.delete(manifestKey);
      await forEachLimit([...files.keys()].filter((key) => key !== manifestKey), DELETES_IN_FLIGHT, (key) => driver.delete(key));
    }

    // Claims that lead nowhere: their version was deleted, or never got a file and is past the floor.
    const claims = await driver.list(buildClaimsPrefix(game));
    await forEachLimit(claims, DELETES_IN_FLIGHT, async (key) => {
      const object = await driver.get(key);
      if (!object) return;
      const version = claimedVersion(object.body);
      const time = version !== null ? versionTime(version) : null;
      const orphan = version !== null && !byVersion.has(version) && time !== null && now - time.getTime() >= minAgeMs;
      if (version !== null && (deleted.has(version) || orphan)) {
        result.deletedClaims += 1;
        if (!options.dryRun) await driver.delete(key);
      }
    });
    result.deletedChangeRecords += await collectChangeRecords(driver, game, current, keepChangesDays, now, options.dryRun === true);
  }

  // Debris of killed writers (`*.tmp-*`), which listings never show: location-wide.
  if (driver.removeStaleTemporaries) {
    const removed = await driver.removeStaleTemporaries(TEMPORARY_MAX_AGE_MS, { dryRun: options.dryRun === true });
    result.deletedTemporaries = removed.files;
    result.deletedTemporaryBytes = removed.bytes;
  }
  return result;
}
