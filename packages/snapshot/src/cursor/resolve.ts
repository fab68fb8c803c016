import { andThen, type MaybePromise } from '../maybe-promise.ts';
import type { SnapshotReader } from '../reader/reader.ts';
import type { SnapshotVersion } from '../reader/version.ts';
import { parseCursor, verifyCursor, type CursorPosition } from './format.ts';

export type CursorCheck =
  | { ok: true; version: SnapshotVersion; page: number }
  | { ok: false };

const INVALID: CursorCheck = { ok: false };

/**
 * Resolves a client's cursor to the version and page it points at, checking signature, game and
 * hitsPerPage. Anything else (malformed, tampered, foreign, or for a version no longer kept) is
 * `{ ok: false }`. Synchronous when the version is loaded (the common case: a walk in progress).
 */
export function resolveCursor(reader: SnapshotReader, token: string, game: string, hitsPerPage: number): MaybePromise<CursorCheck> {
  // A walk presents each cursor once, but CDNs and retries repeat them: remember verified ones.
  const known = reader.verifiedCursors.get(token);
  if (known) return checkPosition(reader, known, game, hitsPerPage);
  const parsed = parseCursor(token);
  // The game is checked before anything is loaded: only the caller's (validated) slug reaches storage.
  if (!parsed || parsed.game !== game) return INVALID;
  return andThen(reader.cursorKeys.keyFor(game, parsed.version), (key) => {
    // The signature is checked before the version is loaded, so forged cursors naming made-up
    // versions cost no storage reads. The key is the one the version was built with (publish).
    if (!key || !verifyCursor(key, parsed)) return INVALID;
    const position = { game: parsed.game, hitsPerPage: parsed.hitsPerPage, version: parsed.version, page: parsed.page };
    return andThen(reader.version(game, parsed.version), (claimed) => {
      if (!claimed) return INVALID;
      reader.verifiedCursors.set(token, position);
      return checkPosition(reader, position, game, hitsPerPage);
    });
  });
}

function checkPosition(reader: SnapshotReader, position: CursorPosition, game: string, hitsPerPage: number): MaybePromise<CursorCheck> {
  if (position.game !== game || position.hitsPerPage !== hitsPerPage) return INVALID;
  return andThen(reader.version(game, position.version), (version): CursorCheck =>
    !version || position.page >= version.pageCount(hitsPerPage) ? INVALID : { ok: true, version, page: position.page },
  );
}
