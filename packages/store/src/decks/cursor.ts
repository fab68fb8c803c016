import { LOWER_CASE_UUID_V4, isDeckSort, type DeckSort } from '@snapdeck/contract';
import { openToken, signToken, verifyToken } from '@snapdeck/snapshot';
import type { DeckPosition } from './types.ts';

/**
 * `startAfter` cursors of GET /v1/decks/public: opaque to clients, signed with a key the gateway
 * keeps in its database (secret.ts). A cursor binds the listing it came from (game, sort,
 * direction, updatedSince) and a position in it (the sort value and id of the last deck returned),
 * or the start of the listing when no deck has been returned yet. A cursor from another listing,
 * a hand-made or a tampered one fails verification, and the route answers 400 `Invalid cursor`.
 *
 * Wire form: the signed-token envelope of @snapdeck/snapshot (cursor/signed-token.ts) around
 * payload = "d1|<game>|<sort>|<a|d>|<updatedSince ms or ->|<value or ->|<id or ->".
 */

/** The parameters a cursor is valid for. The direction follows from them but is bound anyway. */
export interface DeckListing {
  game: string;
  sort: DeckSort;
  /** Epoch ms of `updatedSince`, or null when the listing has no such filter. */
  updatedSince: number | null;
}

export type Direction = 'asc' | 'desc';

/** decisions.md: ascending only for an updatedSince walk, descending otherwise. */
export function directionOf(listing: DeckListing): Direction {
  return listing.updatedSince === null ? 'desc' : 'asc';
}

const VERSION = 'd1';
const INTEGER = /^-?(0|[1-9]\d{0,15})$/;
const GAME = /^[a-z0-9-]{1,64}$/;

function payloadOf(listing: DeckListing, position: DeckPosition | null): string {
  const dir = directionOf(listing) === 'asc' ? 'a' : 'd';
  const since = listing.updatedSince === null ? '-' : String(listing.updatedSince);
  const value = position ? String(position.value) : '-';
  const id = position ? position.id : '-';
  return [VERSION, listing.game, listing.sort, dir, since, value, id].join('|');
}

/** A cursor for `listing` pointing just after `position`, or at the start when it is null. */
export function encodeDeckCursor(key: Uint8Array, listing: DeckListing, position: DeckPosition | null): string {
  return signToken(key, payloadOf(listing, position));
}

export type CursorResult = { ok: true; position: DeckPosition | null } | { ok: false };

/**
 * Verifies a client's cursor against the listing it is presented with. Anything malformed,
 * non-canonical, tampered with or issued for other parameters is `{ ok: false }`.
 */
export function decodeDeckCursor(key: Uint8Array, token: string, listing: DeckListing): CursorResult {
  const fail = { ok: false } as const;
  const opened = openToken(token);
  if (!opened || !verifyToken(key, opened)) return fail;
  const payload = opened.payload;

  // Signed by us, so the shape is ours; still parse strictly rather than trust it blindly.
  const parts = payload.split('|');
  if (parts.length !== 7 || parts[0] !== VERSION) return fail;
  const [, game, sort, , since, value, id] = parts as [string, string, string, string, string, string, string];
  if (!GAME.test(game) || !isDeckSort(sort)) return fail;
  let position: DeckPosition | null = null;
  if (value !== '-' || id !== '-') {
    if (!INTEGER.test(value) || !LOWER_CASE_UUID_V4.test(id)) return fail;
    position = { value: Number(value), id };
  }
  if (since !== '-' && !INTEGER.test(since)) return fail;
  // The cursor must have been issued for exactly this listing (game, sort, direction, filter).
  if (payloadOf(listing, position) !== payload) return fail;
  return { ok: true, position };
}
