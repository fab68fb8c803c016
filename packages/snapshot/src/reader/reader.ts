import { LRUCache } from 'lru-cache';
import { MIB, OPERATOR_DEFAULTS } from '@snapdeck/contract';
import type { CursorPosition } from '../cursor/format.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { CursorKeys } from './cursor-keys.ts';
import { CurrentPointers } from './pointer.ts';
import { RangeCache } from './range-cache.ts';
import type { SnapshotVersion } from './version.ts';
import { VersionCache } from './versions.ts';

export interface SnapshotReaderOptions {
  /** Bytes of page and card bodies kept in memory. */
  cacheBytes?: number;
  /** How long a game's current-version pointer is trusted before it is read again. */
  pointerTtlMs?: number;
  /** Loaded versions kept per reader (each holds its index in memory). */
  maxVersions?: number;
  onError?: (error: unknown, context: string) => void;
}

/**
 * The gateway's read-only view of a snapshot location. Calls go one way:
 *
 *   SnapshotReader ─┬─ CurrentPointers (pointer.ts: each game's current.json, refreshed every pointerTtlMs)
 *                   │        └─ VersionCache (versions.ts: loaded versions, LRU, re-checked)
 *                   │                 └─ SnapshotVersion (version.ts: pages and cards)
 *                   │                          └─ RangeCache (range-cache.ts: byte ranges, LRU by bytes)
 *                   └─ CursorKeys (cursor-keys.ts: the location secret and per-version cursor keys)
 *
 * Older versions are loaded on demand (walks in progress finish on the version they started);
 * cursor resolution (cursor/resolve.ts) uses the reader, never the other way round.
 */
export class SnapshotReader {
  readonly ranges: RangeCache;
  readonly cursorKeys: CursorKeys;
  /** Cursors whose signature was already checked, so a repeated one costs a map lookup (made on first use: version.ts says why). */
  private verified: LRUCache<string, CursorPosition> | null = null;
  get verifiedCursors(): LRUCache<string, CursorPosition> {
    return (this.verified ??= new LRUCache({ max: 100_000 }));
  }
  private readonly versions: VersionCache;
  private readonly pointers: CurrentPointers;
  /** How long a pointer (or a listing, changes/feed.ts) is trusted before storage is read again. */
  readonly pointerTtlMs: number;

  constructor(readonly driver: StorageDriver, options: SnapshotReaderOptions = {}) {
    const pointerTtlMs = options.pointerTtlMs ?? 1000;
    this.pointerTtlMs = pointerTtlMs;
    this.ranges = new RangeCache(driver, options.cacheBytes ?? OPERATOR_DEFAULTS.cacheMiB * MIB);
    this.versions = new VersionCache({ ranges: this.ranges, driver, onError: options.onError }, options.maxVersions ?? 16, pointerTtlMs);
    this.pointers = new CurrentPointers(driver, this.versions, pointerTtlMs, options.onError);
    this.cursorKeys = new CursorKeys(driver);
  }

  /** Range cache hits and misses, for metrics. */
  get stats(): { hits: number; misses: number } {
    return this.ranges.stats;
  }

  /** The current version of a game, or null when none was ever published. */
  current(game: string): MaybePromise<SnapshotVersion | null> {
    return this.pointers.current(game);
  }

  /** A specific version, or null when it does not exist (never built, or deleted). */
  version(game: string, version: string): MaybePromise<SnapshotVersion | null> {
    // A walk in progress is almost always on the current version: no cache lookup for it.
    const current = this.pointers.peek(game);
    if (current?.version === version) return current;
    return this.versions.get(game, version);
  }

  /** Games with a current version, for readiness checks and metrics. */
  loadedVersions(): Record<string, string> {
    return this.pointers.loaded();
  }
}
