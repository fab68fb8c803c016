import { layout, pointerSchema, type Pointer } from '../layout.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { SnapshotError } from './errors.ts';
import type { SnapshotVersion } from './version.ts';
import type { VersionCache } from './versions.ts';

/** A pointer as read from storage, with the entity tag a compare-and-swap needs. */
export interface PointerRead extends Pointer {
  etag: string;
}

/** A pointer object that is there but does not parse as a pointer. */
export class InvalidPointerError extends Error {
  constructor(readonly key: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidPointerError';
  }
}

/**
 * The pointer (`current.json`) at `key`, or null when there is none; throws when it is there but
 * not a pointer. The one way anything reads a pointer: the reader, publish (cards and store), gc,
 * the store follower and tests.
 */
export async function readPointer(driver: StorageDriver, key: string): Promise<PointerRead | null> {
  const object = await driver.get(key);
  if (!object) return null;
  let pointer: Pointer;
  try {
    pointer = pointerSchema.parse(JSON.parse(Buffer.from(object.body).toString('utf8')));
  } catch (error) {
    throw new InvalidPointerError(key, `${driver.location}/${key} is not a valid pointer: ${(error as Error).message}`, { cause: error });
  }
  return { ...pointer, etag: object.etag };
}

interface PointerState {
  version: SnapshotVersion | null;
  checkedAt: number;
  refreshing: Promise<void> | null;
}

/**
 * The current version of each game, following its pointer: re-read every `ttlMs`, so a new build
 * is served without a restart. A stale pointer is refreshed in the background while the version
 * already loaded keeps being served.
 */
export class CurrentPointers {
  private readonly states = new Map<string, PointerState>();

  constructor(
    private readonly driver: StorageDriver,
    private readonly versions: VersionCache,
    private readonly ttlMs: number,
    private readonly onError?: (error: unknown, context: string) => void,
  ) {}

  /** The current version of a game, or null when none was ever published. */
  current(game: string): MaybePromise<SnapshotVersion | null> {
    let state = this.states.get(game);
    if (!state) {
      state = { version: null, checkedAt: 0, refreshing: null };
      this.states.set(game, state);
    }
    if (state.version?.gone) {
      // Deleted under us: look at the pointer again, now.
      state.version = null;
      state.checkedAt = 0;
    }
    const stale = Date.now() - state.checkedAt >= this.ttlMs;
    if (stale && !state.refreshing) state.refreshing = this.refresh(game, state);
    if (state.version === null && state.refreshing) return state.refreshing.then(() => state!.version);
    return state.version;
  }

  /** The loaded current version of a game, without looking at storage (null when none or gone). */
  peek(game: string): SnapshotVersion | null {
    const version = this.states.get(game)?.version;
    return version && !version.gone ? version : null;
  }

  /** Games with a current version, for readiness checks and metrics. */
  loaded(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [game, state] of this.states) if (state.version && !state.version.gone) out[game] = state.version.version;
    return out;
  }

  private async refresh(game: string, state: PointerState): Promise<void> {
    try {
      const pointer = await readPointer(this.driver, layout.pointer(game));
      if (pointer && state.version?.version !== pointer.version) {
        const loaded = await this.versions.get(game, pointer.version);
        if (!loaded) throw new SnapshotError(`${game}: current version ${pointer.version} cannot be loaded`);
        state.version = loaded;
      }
      state.checkedAt = Date.now();
    } catch (error) {
      // Keep serving what is loaded; try again on a later request.
      this.onError?.(error, `refreshing the current version of ${game}`);
      if (state.version === null) throw error;
    } finally {
      state.refreshing = null;
    }
  }
}
