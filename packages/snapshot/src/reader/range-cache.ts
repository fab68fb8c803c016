import { LRUCache } from 'lru-cache';
import type { MaybePromise } from '../maybe-promise.ts';
import type { StorageDriver } from '../storage/driver.ts';

/**
 * Byte ranges of snapshot files, bounded by bytes: a cached range is returned as is (synchronously),
 * and a range many requests want at the same time is read from storage once.
 */
export class RangeCache {
  readonly cache: LRUCache<string, Uint8Array>;
  private readonly pending = new Map<string, Promise<Uint8Array>>();
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly driver: StorageDriver, maxBytes: number) {
    this.cache = new LRUCache<string, Uint8Array>({
      maxSize: maxBytes,
      sizeCalculation: (value, key) => value.byteLength + key.length + 64,
    });
  }

  /** Bytes of one object range, from the cache or (once, however many ask at the same time) storage. */
  read(key: string, offset: number, length: number): MaybePromise<Uint8Array> {
    const cacheKey = `${key}@${offset}+${length}`;
    const cached = this.cache.get(cacheKey);
    if (cached) {
      this.stats.hits += 1;
      return cached;
    }
    return this.shared(cacheKey, async () => {
      this.stats.misses += 1;
      return this.driver.getRange(key, offset, length);
    });
  }

  /** Runs `load` once for concurrent callers of the same key and caches its result. */
  shared(cacheKey: string, load: () => Promise<Uint8Array>): MaybePromise<Uint8Array> {
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    let pending = this.pending.get(cacheKey);
    if (!pending) {
      pending = load()
        .then((bytes) => {
          this.cache.set(cacheKey, bytes);
          return bytes;
        })
        .finally(() => this.pending.delete(cacheKey));
      this.pending.set(cacheKey, pending);
    }
    return pending;
  }
}
