import type { ObjectInfo, PutOptions, StorageDriver, StoredObject } from '@snapdeck/snapshot';

/**
 * A StorageDriver around any other that counts what goes through it: the bytes and keys read
 * (get, getRange) and written (put). Tests of incremental publishing show with it what a change
 * costs. Nothing is changed on the way.
 */
export class CountingDriver implements StorageDriver {
  readonly location: string;
  bytesRead = 0;
  bytesWritten = 0;
  readonly keysRead: string[] = [];
  readonly keysWritten: string[] = [];

  constructor(readonly inner: StorageDriver) {
    this.location = inner.location;
  }

  reset(): void {
    this.bytesRead = 0;
    this.bytesWritten = 0;
    this.keysRead.length = 0;
    this.keysWritten.length = 0;
  }

  async get(key: string): Promise<StoredObject | null> {
    const object = await this.inner.get(key);
    if (object) {
      this.bytesRead += object.body.length;
      this.keysRead.push(key);
    }
    return object;
  }

  async getRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    const body = await this.inner.getRange(key, offset, length);
    this.bytesRead += body.length;
    this.keysRead.push(key);
    return body;
  }

  head(key: string): Promise<ObjectInfo | null> {
    return this.inner.head(key);
  }

  async put(key: string, body: Uint8Array, options?: PutOptions): Promise<ObjectInfo> {
    const info = await this.inner.put(key, body, options);
    this.bytesWritten += body.length;
    this.keysWritten.push(key);
    return info;
  }

  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
}
