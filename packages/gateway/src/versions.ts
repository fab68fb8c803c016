import { VersionGoneError, andThen, resolveCursor, type MaybePromise, type SnapshotReader, type SnapshotVersion } from '@snapdeck/snapshot';

/**
 * A public game with no current snapshot at the location served (→ 500, /readyz 503). The message
 * names the game and the location; how to publish one is the front end's to say (`snapdeck serve`
 * prints it at start-up), not the library's.
 */
export class NoSnapshotError extends Error {
  constructor(game: string, location: string) {
    super(`no snapshot has been published for ${game} at ${location}`);
    this.name = 'NoSnapshotError';
  }
}

/**
 * The snapshot versions the routes read, and the one place that decides what a deleted version
 * means. A version this process still has loaded can be deleted under it (replaced, then
 * collected by `snapdeck gc`, before this process saw the new pointer); reading it then fails
 * with VersionGoneError. For a read of the current version that is recoverable: read once more,
 * from the newly current version. For a version a client's cursor pinned it is not: the walk has
 * to restart, and the client is told so (400 Invalid cursor).
 */
export class CatalogVersions {
  constructor(readonly snapshots: SnapshotReader) {}

  /** The current version of a public game; throws NoSnapshotError (→ 500) when none is published. */
  current(game: string): MaybePromise<SnapshotVersion> {
    return andThen(this.snapshots.current(game), (version) => {
      if (!version) throw new NoSnapshotError(game, this.snapshots.driver.location);
      return version;
    });
  }

  /** Runs `read` on the current version, once more on the newly current one when it was deleted meanwhile. */
  readCurrent<T>(game: string, read: (version: SnapshotVersion) => MaybePromise<T>): MaybePromise<T> {
    const retry = (error: unknown) => {
      if (!(error instanceof VersionGoneError)) throw error;
      return andThen(this.current(game), read);
    };
    let result: MaybePromise<T>;
    try {
      result = andThen(this.current(game), read);
    } catch (error) {
      return retry(error);
    }
    return result instanceof Promise ? result.catch(retry) : result;
  }

  /**
   * Runs `read` on the version and page a client's cursor points at (signature, game and
   * hitsPerPage checked). null when the cursor is not valid for this request, or names a version
   * that is gone: both answer 400 Invalid cursor.
   */
  readAtCursor<T>(cursor: string, game: string, hitsPerPage: number, read: (version: SnapshotVersion, page: number) => MaybePromise<T>): MaybePromise<T | null> {
    return andThen(resolveCursor(this.snapshots, cursor, game, hitsPerPage), (check) => {
      if (!check.ok) return null;
      let result: MaybePromise<T>;
      try {
        result = read(check.version, check.page);
      } catch (error) {
        return gone(error);
      }
      return result instanceof Promise ? result.catch(gone) : result;
    });
  }
}

function gone(error: unknown): null {
  if (error instanceof VersionGoneError) return null;
  throw error;
}
