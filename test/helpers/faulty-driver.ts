import type { ObjectInfo, PutOptions, StorageDriver, StoredObject } from '@snapdeck/snapshot';
import { listSizes } from '@snapdeck/snapshot';

/**
 * Fault injection for tests, the unstorage way: a StorageDriver that wraps any other and sees
 * every write go by, so production code carries no test hooks. It records the keys written
 * (successful puts only, in order) and, after a write, can run a hook, SIGKILL the process
 * (a crash or an OOM kill at that exact point) or throw.
 */
export interface FaultOptions {
  /** Runs after each successful write, before the writer goes on. */
  afterWrite?: (key: string, writes: number) => Promise<void> | void;
  /** SIGKILL this process right after its Nth successful write. */
  killAfterWrites?: number;
  /** SIGKILL this process right after writing the first key that contains this text. */
  killAfterKey?: string;
  /** Throw WriteFaultError right after the Nth successful write (the object is written). */
  throwAfterWrites?: number;
}

export class WriteFaultError extends Error {
  constructor(readonly key: string, readonly writes: number) {
    super(`injected fault after write ${writes} (${key})`);
    this.name = 'WriteFaultError';
  }
}

export class FaultyDriver implements StorageDriver {
  /** Keys written through this driver, in the order their writes completed. */
  readonly writes: string[] = [];
  readonly location: string;

  constructor(readonly inner: StorageDriver, private readonly faults: FaultOptions = {}) {
    this.location = inner.location;
  }

  async put(key: string, body: Uint8Array, options?: PutOptions): Promise<ObjectInfo> {
    const info = await this.inner.put(key, body, options);
    this.writes.push(key);
    const count = this.writes.length;
    await this.faults.afterWrite?.(key, count);
    if (count === this.faults.killAfterWrites || (this.faults.killAfterKey !== undefined && key.includes(this.faults.killAfterKey))) {
      process.kill(process.pid, 'SIGKILL');
    }
    if (count === this.faults.throwAfterWrites) throw new WriteFaultError(key, count);
    return info;
  }

  get(key: string): Promise<StoredObject | null> {
    return this.inner.get(key);
  }

  getRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    return this.inner.getRange(key, offset, length);
  }

  head(key: string): Promise<ObjectInfo | null> {
    return this.inner.head(key);
  }

  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }

  /** The inner driver's way of listing sizes (a folder stats its files rather than hashing them). */
  listSizes(prefix: string): Promise<Map<string, number>> {
    return listSizes(this.inner, prefix);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  async removeStaleTemporaries(olderThanMs: number, options?: { dryRun?: boolean }): Promise<{ files: number; bytes: number }> {
    return this.inner.removeStaleTemporaries ? this.inner.removeStaleTemporaries(olderThanMs, options) : { files: 0, bytes: 0 };
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
