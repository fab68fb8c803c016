import { sha256Hex } from '../hash.ts';
import { layout, type Manifest } from '../layout.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { listSizes, storedChecksum } from '../storage/inspect.ts';
import { UploadQueue } from './upload-queue.ts';

/** At most this many segment uploads in flight per version: bounds memory and connections. */
const WRITES_IN_FLIGHT = 2;

/**
 * Writes the files of one version, resumably: a file an earlier run already stored with the same
 * size and SHA-256 is skipped (one listing of the version's folder, then the driver's stored
 * checksum or the bytes). Records each file for the manifest, and counts what it wrote and skipped.
 */
export class VersionWriter {
  /** Every file of the version, for its manifest (name → size and SHA-256). */
  readonly files: Manifest['files'] = {};
  bytes = 0;
  skipped = 0;
  skippedBytes = 0;
  private readonly uploads = new UploadQueue(WRITES_IN_FLIGHT);

  private constructor(readonly driver: StorageDriver, readonly game: string, readonly version: string, private readonly stored: Map<string, number>) {}

  /** A writer for `game`/`version`, after one listing of what an earlier run already stored there. */
  static async open(driver: StorageDriver, game: string, version: string): Promise<VersionWriter> {
    return new VersionWriter(driver, game, version, await listSizes(driver, layout.versionPrefix(game, version)));
  }

  /** Writes one file of the version now. */
  async writeFile(name: string, body: Uint8Array): Promise<void> {
    const key = layout.file(this.game, this.version, name);
    const sha256 = sha256Hex(body);
    this.files[name] = { size: body.length, sha256 };
    this.bytes += body.length;
    await this.storeObject(key, body, sha256);
  }

  /** Queues one file of the version (pack segments): returns once its upload has started. */
  queueFile(name: string, body: Uint8Array): Promise<void> {
    return this.uploads.add(() => this.writeFile(name, body));
  }

  /** Waits for every queued file; throws the first failure. */
  drain(): Promise<void> {
    return this.uploads.drain();
  }

  /** Writes an object unless an earlier run left the same bytes there. */
  async storeObject(key: string, body: Uint8Array, sha256: string, contentType?: string): Promise<void> {
    if (this.stored.get(key) === body.length) {
      const existing = await storedChecksum(this.driver, key, body.length);
      if (existing?.sha256 === sha256) {
        this.skipped += 1;
        this.skippedBytes += body.length;
        return;
      }
    }
    await this.driver.put(key, body, contentType ? { contentType } : undefined);
  }
}
