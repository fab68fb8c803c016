/**
 * The numeric rules of the contract (interface.md §4, §8 and decisions.md), in one place: the
 * OpenAPI document, the gateway and the client read them from here.
 */

/** GET /games/{slug}/cards: hitsPerPage is an integer 1..1000, default 1. */
export const HITS_PER_PAGE = { min: 1, max: 1000, default: 1 } as const;

/** GET /games/{slug}/changes: limit is clamped to 1..1000, default 100 (decisions.md "Card changes"). */
export const CHANGES_LIMIT = { min: 1, max: 1000, default: 100 } as const;

/** GET /decks/public: limit is clamped to 1..50, default 20. */
export const DECK_LIST_LIMIT = { min: 1, max: 50, default: 20 } as const;

/** The listing sorts of GET /decks/public, in the contract's spelling; the first is the default. */
export const DECK_SORTS = ['updatedAt', 'copyCount', 'viewCount', 'likeCount', 'createdAt'] as const;
export type DeckSort = (typeof DECK_SORTS)[number];

export function isDeckSort(value: string): value is DeckSort {
  return (DECK_SORTS as readonly string[]).includes(value);
}

/** GET /decks/changes: limit is clamped to 1..1000, default 1000 (decisions.md "Deck changes"). */
export const DECK_CHANGES_LIMIT = { min: 1, max: 1000, default: 1000 } as const;

/** POST /decks/details: at most 50 ids per request. */
export const DECK_DETAILS_MAX_IDS = 50;

/** Fixed quota windows of 15 minutes, aligned to the clock. */
export const QUOTA_WINDOW_SECONDS = 900;

/** GET /decks/{deckId} (no key): requests per client address and window, unless the operator sets another. */
export const ADDRESS_QUOTA_DEFAULT = 3000;

/**
 * The search routes (/v1/search/…, no key): requests per client address and window, in a bucket
 * apart from deck views (decisions.md "Search"), unless the operator sets another. A browser
 * search costs about 8 requests a query (the descriptor, the engine, index chunks, fragments),
 * so this lets one address, a school or a carrier's NAT, make about 1,200 queries a window.
 */
export const SEARCH_QUOTA_DEFAULT = 10_000;

/**
 * The largest quota a key (or the per-address limit) may have: the quota is sent in
 * `RateLimit-Policy` (q=) and `RateLimit-Limit`, whose values are RFC 8941 Integers, at most 15
 * decimal digits. A larger quota could not be announced correctly.
 */
export const QUOTA_MAX = 999_999_999_999_999;

/**
 * decisions.md "Cards": the control characters (U+0000–U+001F, U+007F–U+009F, U+2028, U+2029) a
 * single-line text field never holds: in a text export a line break or another control character
 * from data would forge lines. The build refuses card names with one; deck import refuses them in
 * a deck's name and owner; exports replace any that reach them anyway (singleLine).
 */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, 'g');

/** Where the first control character of `text` is and which it is (`U+000A`), or null. */
export function findControlCharacter(text: string): { index: number; codePoint: string } | null {
  const match = CONTROL_CHARACTER.exec(text);
  return match ? { index: match.index, codePoint: `U+${match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` } : null;
}

/** `text` with every control character replaced by a space: what an export prints on one line. */
export function singleLine(text: string): string {
  return text.replace(CONTROL_CHARACTERS, ' ');
}

/**
 * `decks import`: the longest line read, in bytes. A legal deck is far below it (1,000 card
 * entries with the longest ids and zones and 200-character names: about 210 KB); the cap bounds the
 * memory one line may take, so a file with no line breaks is refused by its line number instead
 * of exhausting the process.
 */
export const DECK_IMPORT_LINE_MAX_BYTES = 1024 * 1024;
