import { DECK_LIST_LIMIT, type DeckSort, type GameSlug, type PublicDecksPage } from '@snapdeck/contract';
import { decodeDeckCursor, encodeDeckCursor, type DeckListing } from './cursor.ts';
import type { DeckStore } from './store.ts';

/** interface.md §4.4 / §8: a client's limit is clamped into the contract's DECK_LIST_LIMIT. */
export function clampListLimit(limit: number): number {
  return Math.min(DECK_LIST_LIMIT.max, Math.max(DECK_LIST_LIMIT.min, Math.trunc(limit)));
}

export interface PublicListingRequest {
  game: GameSlug;
  sort: DeckSort;
  /** Already clamped by the caller (clampListLimit). */
  limit: number;
  /** Epoch ms, or null without the filter (then sort may be anything). */
  updatedSince: number | null;
  /** The client's `startAfter`, if any. */
  startAfter?: string | undefined;
}

/** `page` is the data of a GET /v1/decks/public response. */
export type PublicListingResult = { ok: true; page: PublicDecksPage } | { ok: false; error: 'invalidCursor' };

/**
 * One page of GET /v1/decks/public: verifies `startAfter` against the listing's parameters, reads
 * the page, and signs the next cursor. `nextCursor` is always a string (decisions.md): just past
 * the last deck returned, or, for an empty page, the position the client asked from (the start of
 * the listing when it sent no cursor), so following it later yields only decks that sort after it.
 */
export function listPublicDecks(store: DeckStore, cursorKey: Uint8Array, request: PublicListingRequest): PublicListingResult {
  const listing: DeckListing = { game: request.game, sort: request.sort, updatedSince: request.updatedSince };
  let after = null;
  if (request.startAfter !== undefined) {
    const decoded = decodeDeckCursor(cursorKey, request.startAfter, listing);
    if (!decoded.ok) return { ok: false, error: 'invalidCursor' };
    after = decoded.position;
  }
  const page = store.listPublic({ game: request.game, sort: request.sort, limit: request.limit, after, updatedSince: request.updatedSince });
  return {
    ok: true,
    page: {
      decks: page.decks,
      nextCursor: encodeDeckCursor(cursorKey, listing, page.last),
      hasMore: page.hasMore,
      totalCount: page.totalCount,
    },
  };
}
