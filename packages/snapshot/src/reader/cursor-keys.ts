import { LRUCache } from 'lru-cache';
import { deriveCursorKey } from '../cursor/format.ts';
import { LOCATION_SECRET_KEY } from '../layout.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { StorageDriver } from '../storage/driver.ts';

/**
 * The keys that sign each version's cursors, derived from the location's secret (publish/secret.ts
 * creates it with the first build), so a cursor's signature is checked before anything of the
 * version it names is read. The secret is read once; derived keys are remembered per version.
 */
export class CursorKeys {
  private secret: Promise<Buffer | null> | undefined;
  private secretValue: Buffer | undefined;
  private readonly keys = new LRUCache<string, Buffer>({ max: 1024 });

  constructor(private readonly driver: StorageDriver) {}

  /** The key of `game`/`version`, or null while the location has no secret (nothing was built there). */
  keyFor(game: string, version: string): MaybePromise<Buffer | null> {
    const secret = this.secretValue ?? this.readSecret();
    if (secret instanceof Promise) return secret.then((value) => value && this.derived(value, game, version));
    return this.derived(secret, game, version);
  }

  private readSecret(): Promise<Buffer | null> {
    if (!this.secret) {
      this.secret = this.driver.get(LOCATION_SECRET_KEY).then((object) => (object ? Buffer.from(object.body) : null));
      // Not remembered when storage failed, nor while absent (a first build may create it).
      this.secret.then((value) => (value ? (this.secretValue = value) : (this.secret = undefined)), () => (this.secret = undefined));
    }
    return this.secret;
  }

  private derived(secret: Buffer, game: string, version: string): Buffer {
    const id = `${game}/${version}`;
    let key = this.keys.get(id);
    if (!key) {
      key = deriveCursorKey(secret, game, version);
      this.keys.set(id, key);
    }
    return key;
  }
}
