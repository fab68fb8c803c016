export class SnapshotError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SnapshotError';
  }
}

/**
 * A loaded version's files are gone from storage (deleted by `snapdeck gc`): its cursors are
 * invalid (400 `Invalid cursor`), and a request for the current version should look again.
 */
export class VersionGoneError extends SnapshotError {
  constructor(readonly game: string, readonly version: string, options?: { cause?: unknown }) {
    super(`${game}/${version} was deleted from storage while it was loaded`, options);
    this.name = 'VersionGoneError';
  }
}
