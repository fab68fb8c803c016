import { createHmac } from 'node:crypto';
import { openToken, signToken, verifyToken, type SignedToken } from './signed-token.ts';

/**
 * Card-walk cursors: opaque to clients, signed with the key of the snapshot version they belong
 * to. A cursor names the game, hitsPerPage, version and page it points at; the signature makes a
 * tampered or hand-made cursor fail, and binding the parameters makes a foreign one fail.
 *
 * Wire form: the signed-token envelope (signed-token.ts) around
 * payload = "c1|<game>|<hitsPerPage>|<version>|<page>".
 */
export interface CursorPosition {
  game: string;
  hitsPerPage: number;
  version: string;
  page: number;
}

function payloadOf(position: CursorPosition): string {
  return `c1|${position.game}|${position.hitsPerPage}|${position.version}|${position.page}`;
}

/**
 * The key that signs one version's cursors: derived from the location's secret, so the gateway can
 * check a cursor's signature before it reads anything of the version the cursor names.
 */
export function deriveCursorKey(locationSecret: Uint8Array, game: string, version: string): Buffer {
  return createHmac('sha256', locationSecret).update(`snapdeck cursor key|${game}|${version}`).digest();
}

export function encodeCursor(key: Uint8Array, position: CursorPosition): string {
  return signToken(key, payloadOf(position));
}

/**
 * Reads a cursor without trusting it: returns its claimed position (so the caller can find the
 * version's key), or null when it is not even shaped like a cursor. Call verifyCursor before use.
 */
export function parseCursor(token: string): (CursorPosition & SignedToken) | null {
  const opened = openToken(token);
  if (!opened) return null;
  const parts = opened.payload.split('|');
  if (parts.length !== 5 || parts[0] !== 'c1') return null;
  const [, game, hitsText, version, pageText] = parts as [string, string, string, string, string];
  if (!/^[1-9]\d{0,3}$/.test(hitsText) || !/^(0|[1-9]\d{0,9})$/.test(pageText)) return null;
  const position = { game, hitsPerPage: Number(hitsText), version, page: Number(pageText) };
  // Re-encoding must give back the same payload: rejects non-canonical payloads.
  if (payloadOf(position) !== opened.payload) return null;
  return { ...position, ...opened };
}

export function verifyCursor(key: Uint8Array, parsed: SignedToken): boolean {
  return verifyToken(key, parsed);
}
