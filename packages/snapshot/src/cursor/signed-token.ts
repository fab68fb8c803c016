import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The envelope every signed cursor shares (card-walk cursors here, deck-listing cursors in
 * @snapdeck/store): opaque to clients, tamper-evident, canonical.
 *
 * Wire form: base64url(payload) "." base64url(first 16 bytes of HMAC-SHA256(key, payload)).
 * Each kind of cursor owns its payload (a version tag first: "c1|…", "d1|…") and checks it.
 */
export interface SignedToken {
  payload: string;
  signature: Buffer;
}

const MAC_BYTES = 16;
/** Longer tokens are refused before any decoding: no cursor of ours comes near it. */
export const MAX_TOKEN_LENGTH = 512;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function mac(key: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);
}

export function signToken(key: Uint8Array, payload: string): string {
  return `${Buffer.from(payload).toString('base64url')}.${mac(key, payload).toString('base64url')}`;
}

/**
 * Splits a token into its payload and signature without trusting it, or null when it is not
 * shaped like one of ours: empty, too long, not two base64url parts, a signature of another
 * length, or base64url that does not re-encode to the same text (one spelling per token).
 * Check the signature with `verifyToken` before using the payload.
 */
export function openToken(token: string): SignedToken | null {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return null;
  const encodedPayload = token.slice(0, dot);
  const encodedSignature = token.slice(dot + 1);
  if (!BASE64URL.test(encodedPayload) || !BASE64URL.test(encodedSignature)) return null;
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (signature.length !== MAC_BYTES || signature.toString('base64url') !== encodedSignature) return null;
  const payload = Buffer.from(encodedPayload, 'base64url').toString('utf8');
  if (Buffer.from(payload).toString('base64url') !== encodedPayload) return null;
  return { payload, signature };
}

/** True when `token` was signed with `key` (constant time). */
export function verifyToken(key: Uint8Array, token: SignedToken): boolean {
  return timingSafeEqual(mac(key, token.payload), token.signature);
}
