import { listSizes, type ObjectInfo, type PutOptions, type StorageDriver, type StoredObject } from '@snapdeck/snapshot';

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
  /** Storage requests by operation (get, getRange, head, put, list, delete). */
  readonly requests = new Map<string, number>();

  constructor(readonly inner: StorageDriver) {
    this.location = inner.location;
  }

  reset(): void {
    this.bytesRead = 0;
    this.bytesWritten = 0;
    this.keysRead.length = 0;
    this.keysWritten.length = 0;
    this.requests.clear();
  }

  private count(operation: string): void {
    this.requests.set(operation, (this.requests.get(operation) ?? 0) + 1);
  }

  async get(key: string): Promise<StoredObject | null> {
    this.count('get');
    const object = await this.inner.get(key);
    if (object) {
      this.bytesRead += object.body.length;
      this.keysRead.push(key);
    }
    return object;
  }

  async getRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    this.count('getRange');
    const body = await this.inner.getRange(key, offset, length);
    this.bytesRead += body.length;
    this.keysRead.push(key);
    return body;
  }

  head(key: string): Promise<ObjectInfo | null> {
    this.count('head');
    return this.inner.head(key);
  }

  async put(key: string, body: Uint8Array, options?: PutOptions): Promise<ObjectInfo> {
    this.count('put');
    const info = await this.inner.put(key, body, options);
    this.bytesWritten += body.length;
    this.keysWritten.push(key);
    return info;
  }

  /** One listing, with sizes (the inner driver's own when it has one: no object is read). */
  listSizes(prefix: string): Promise<Map<string, number>> {
    this.count('list');
    return listSizes(this.inner, prefix);
  }

  list(prefix: string): Promise<string[]> {
    this.count('list');
    return this.inner.list(prefix);
  }

  delete(key: string): Promise<void> {
    this.count('delete');
    return this.inner.delete(key);
  }
}
