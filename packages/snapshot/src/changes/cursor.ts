import { openToken, signToken, verifyToken } from '../cursor/signed-token.ts';

/**
 * Cursors of GET /games/{slug}/changes: the signed-token envelope (cursor/signed-token.ts) around
 * "x1|<game>|<since>|<to>|<limit>|<offset>", signed with the key of the version `to` (the one the
 * pages are pinned to), like a walk's cursor.
 */
export interface ChangesPosition {
  game: string;
  since: string;
  to: string;
  limit: number;
  offset: number;
}

function payloadOf(p: ChangesPosition): string {
  return `x1|${p.game}|${p.since}|${p.to}|${p.limit}|${p.offset}`;
}

export function encodeChangesCursor(key: Uint8Array, position: ChangesPosition): string {
  return signToken(key, payloadOf(position));
}

/** The claimed position of a cursor (not yet verified), or null when it is not shaped like one. */
export function parseChangesCursor(token: string): (ChangesPosition & { verify: (key: Uint8Array) => boolean }) | null {
  const opened = openToken(token);
  if (!opened) return null;
  const parts = opened.payload.split('|');
  if (parts.length !== 6 || parts[0] !== 'x1') return null;
  const [, game, since, to, limitText, offsetText] = parts as [string, string, string, string, string, string];
  const position = { game, since, to, limit: Number(limitText), offset: Number(offsetText) };
  if (payloadOf(position) !== opened.payload || !Number.isSafeInteger(position.offset) || position.offset < 1) return null;
  return { ...position, verify: (key) => verifyToken(key, opened) };
}
