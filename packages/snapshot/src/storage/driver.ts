import { OperatorError } from '@snapdeck/contract';
/**
 * One interface for every place a snapshot can live (in the spirit of unjs/unstorage): the
 * builder writes through it, the gateway reads through it. Keys are '/'-separated paths relative
 * to the driver's root, never starting with '/'.
 */
export interface StorageDriver {
  /** Where this driver points, for logs and messages: a folder path or s3://bucket/prefix. */
  readonly location: string;
  /** The whole object, or null when it does not exist. */
  get(key: string): Promise<StoredObject | null>;
  /** `length` bytes from `offset`. Throws when the object does not exist or is shorter. */
  getRange(key: string, offset: number, length: number): Promise<Uint8Array>;
  /** Size and entity tag, or null when the object does not exist. */
  head(key: string): Promise<ObjectInfo | null>;
  /**
   * Writes the object whole (readers never see a partial object). With a precondition, the write
   * happens only if it holds, atomically; otherwise PreconditionFailedError is thrown.
   */
  put(key: string, body: Uint8Array, options?: PutOptions): Promise<ObjectInfo>;
  /** Every key under the prefix (a folder-like prefix ending in '/' or ''), in no set order. */
  list(prefix: string): Promise<string[]>;
  /**
   * Optional: every key under the prefix with its size, from one listing (S3 gives sizes with
   * ListObjectsV2). Callers fall back to `list` plus other means when a driver lacks it.
   */
  listSizes?(prefix: string): Promise<Map<string, number>>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  /**
   * Optional: removes the temporary files killed writers left behind that were not modified for
   * `olderThanMs` (`list` never shows them); the count and bytes removed (or, dry run, found).
   * Stores with atomic writes (S3) have none.
   * `snapdeck gc` calls it when present.
   */
  removeStaleTemporaries?(olderThanMs: number, options?: { dryRun?: boolean }): Promise<{ files: number; bytes: number }>;
  /** Releases handles and connections. */
  close?(): Promise<void>;
}

export interface ObjectInfo {
  size: number;
  /** Opaque entity tag: changes whenever the content changes. */
  etag: string;
  /**
   * SHA-256 (hex) of the content, when the store can vouch for it without reading the bytes (the
   * S3 driver keeps it in object metadata written by `put`). Absent when unknown.
   */
  sha256?: string;
}

export interface StoredObject extends ObjectInfo {
  body: Uint8Array;
}

export interface PutOptions {
  /** '*': only create, never overwrite. */
  ifNoneMatch?: '*';
  /** Only overwrite the object whose current entity tag is this one. */
  ifMatch?: string;
  contentType?: string;
}

export class PreconditionFailedError extends Error {
  constructor(key: string) {
    super(`precondition failed writing ${key}: it was changed by someone else`);
    this.name = 'PreconditionFailedError';
  }
}

/** getRange of an object that does not exist (every driver throws this, so callers can tell). */
export class ObjectNotFoundError extends Error {
  constructor(readonly key: string, message = `${key} does not exist`, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ObjectNotFoundError';
  }
}

export class StorageUnavailableError extends OperatorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
