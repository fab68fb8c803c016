/**
 * The numeric rules of the contract (interface.md §4, §8 and decisions.md), in one place: the
 * OpenAPI document, the gateway and the client read them from here.
 */

/** GET /games/{slug}/cards: hitsPerPage is an integer 1..1000, default 1. */
export const HITS_PER_PAGE = { min: 1, max: 1000, default: 1 } as const;

/** GET /decks/public: limit is clamped to 1..50, default 20. */
export const DECK_LIST_LIMIT = { min: 1, max: 50, default: 20 } as const;

/** The listing sorts of GET /decks/public, in the contract's spelling; the first is the default. */
export const DECK_SORTS = ['updatedAt', 'copyCount', 'viewCount', 'likeCount', 'createdAt'] as const;
export type DeckSort = (typeof DECK_SORTS)[number];

export function isDeckSort(value: string): value is DeckSort {
  return (DECK_SORTS as readonly string[]).includes(value);
}

/** POST /decks/details: at most 50 ids per request. */
export const DECK_DETAILS_MAX_IDS = 50;

/** Fixed quota windows of 15 minutes, aligned to the clock. */
export const QUOTA_WINDOW_SECONDS = 900;

/** GET /decks/{deckId} (no key): requests per client address and window, unless the operator sets another. */
export const ADDRESS_QUOTA_DEFAULT = 3000;

/**
 * The largest quota a key (or the per-address limit) may have: the quota is sent in
 * `RateLimit-Policy` (q=) and `RateLimit-Limit`, whose values are RFC 8941 Integers, at most 15
 * decimal digits. A larger quota could not be announced correctly.
 */
export const QUOTA_MAX = 999_999_999_999_999;
