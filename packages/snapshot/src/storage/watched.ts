import { ObjectNotFoundError, PreconditionFailedError, StorageUnavailableError, type StorageDriver } from './driver.ts';

/** The driver calls a watcher sees, named as in the StorageDriver interface. */
export type StorageOperation = 'get' | 'getRange' | 'head' | 'put' | 'list' | 'delete';

export interface StorageWatchOptions {
  /**
   * Reads (get, getRange, head, list) that have not answered after this long are given up with
   * StorageTimeoutError, so a stalled store costs a request the timeout, not the SDK's minutes of
   * retries. The call itself runs on until the driver's own timeout; only the wait is bounded.
   * Writes are never cut short (a put given up on might still land). Absent: no bound.
   */
  timeoutMs?: number;
  /**
   * Told of every call's outcome: `error` null when storage answered (a missing object and a
   * failed precondition are answers), else what was thrown; `startedAt` when the call began
   * (Date.now()), so a failure of a call begun before a later success can be told apart.
   */
  onResult?(operation: StorageOperation, error: unknown | null, startedAt: number): void;
}

/** A read that storage did not answer within the storage timeout. */
export class StorageTimeoutError extends StorageUnavailableError {}

const READS: ReadonlySet<StorageOperation> = new Set(['get', 'getRange', 'head', 'list']);

/** Whether `error` means storage answered, only not with the object (not a storage failure). */
function isAnswer(error: unknown): boolean {
  return error instanceof ObjectNotFoundError || error instanceof PreconditionFailedError;
}

/**
 * `driver` with every call watched (in the way of unstorage's wrapping drivers: one layer around
 * any driver instead of hooks in each): reads bounded by `timeoutMs`, every outcome reported to
 * `onResult` (the gateway counts and logs storage failures from there). Optional methods are
 * present only when the wrapped driver has them, so callers' fallbacks still apply.
 */
export function watchStorage(driver: StorageDriver, options: StorageWatchOptions): StorageDriver {
  const { timeoutMs, onResult } = options;
  const bounded = <T>(operation: StorageOperation, key: string, started: Promise<T>): Promise<T> => {
    if (!timeoutMs || !READS.has(operation)) return started;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StorageTimeoutError(`storage unavailable: ${operation} ${driver.location}/${key} gave no answer within ${timeoutMs} ms (the storage timeout)`)),
        timeoutMs,
      );
    });
    // race() handles a late rejection of `started`: nothing goes unhandled.
    return Promise.race([started, timeout]).finally(() => clearTimeout(timer));
  };
  const call = async <T>(operation: StorageOperation, key: string, run: () => Promise<T>): Promise<T> => {
    const startedAt = Date.now();
    try {
      const result = await bounded(operation, key, run());
      onResult?.(operation, null, startedAt);
      return result;
    } catch (error) {
      onResult?.(operation, isAnswer(error) ? null : error, startedAt);
      throw error;
    }
  };
  const watched: StorageDriver = {
    location: driver.location,
    get: (key) => call('get', key, () => driver.get(key)),
    getRange: (key, offset, length) => call('getRange', key, () => driver.getRange(key, offset, length)),
    head: (key) => call('head', key, () => driver.head(key)),
    put: (key, body, putOptions) => call('put', key, () => driver.put(key, body, putOptions)),
    list: (prefix) => call('list', prefix, () => driver.list(prefix)),
    delete: (key) => call('delete', key, () => driver.delete(key)),
  };
  if (driver.listSizes) watched.listSizes = (prefix) => call('list', prefix, () => driver.listSizes!(prefix));
  if (driver.removeStaleTemporaries) watched.removeStaleTemporaries = (olderThanMs, o) => driver.removeStaleTemporaries!(olderThanMs, o);
  if (driver.close) watched.close = () => driver.close!();
  return watched;
}
