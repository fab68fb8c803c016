import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Card-walk cursors: opaque to clients, signed with the key of the snapshot version they belong
 * to. A cursor names the game, hitsPerPage, version and page it points at; the signature makes a
 * tampered or hand-made cursor fail, and binding the parameters makes a foreign one fail.
 *
 * Wire form: base64url(payload) "." base64url(first 16 bytes of HMAC-SHA256(key, payload)),
 * payload = "c1|<game>|<hitsPerPage>|<version>|<page>".
 */
export interface CursorPosition {
  game: string;
  hitsPerPage: number;
  version: string;
  page: number;
}

const MAC_BYTES = 16;
const MAX_CURSOR_LENGTH = 512;

function mac(key: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
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
  const payload = payloadOf(position);
  return `${Buffer.from(payload).toString('base64url')}.${mac(key, payload).toString('base64url')}`;
}

/**
 * Reads a cursor without trusting it: returns its claimed position (so the caller can find the
 * version's key), or null when it is not even shaped like a cursor. Call verifyCursor before use.
 */
export function parseCursor(token: string): (CursorPosition & { signature: Buffer; payload: string }) | null {
  if (token.length === 0 || token.length > MAX_CURSOR_LENGTH) return null;
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return null;
  const encodedPayload = token.slice(0, dot);
  const encodedSignature = token.slice(dot + 1);
  if (!/^[A-Za-z0-9_-]+$/.test(encodedPayload) || !/^[A-Za-z0-9_-]+$/.test(encodedSignature)) return null;
  const payload = Buffer.from(encodedPayload, 'base64url').toString('utf8');
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (signature.length !== MAC_BYTES) return null;
  const parts = payload.split('|');
  if (parts.length !== 5 || parts[0] !== 'c1') return null;
  const [, game, hitsText, version, pageText] = parts as [string, string, string, string, string];
  if (!/^[1-9]\d{0,3}$/.test(hitsText) || !/^(0|[1-9]\d{0,9})$/.test(pageText)) return null;
  const position = { game, hitsPerPage: Number(hitsText), version, page: Number(pageText) };
  // Re-encoding must give back the same bytes: rejects non-canonical base64 and payloads.
  if (payloadOf(position) !== payload || Buffer.from(payload).toString('base64url') !== encodedPayload) return null;
  return { ...position, signature, payload };
}

export function verifyCursor(key: Uint8Array, parsed: { signature: Buffer; payload: string }): boolean {
  return timingSafeEqual(mac(key, parsed.payload), parsed.signature);
}
