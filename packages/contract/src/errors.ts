import { DECK_DETAILS_MAX_IDS, DECK_SORTS, HITS_PER_PAGE } from './limits.ts';

/**
 * Every error string of the public contract (interface.md §7 and decisions.md), in one place.
 * Clients switch on these exact strings, so they are imported everywhere and never retyped.
 */
export const ERRORS = {
  apiKeyRequired: 'API key required',
  invalidApiKey: 'Invalid API key',
  insufficientScope: 'Insufficient scope',
  rateLimitExceeded: 'Rate limit exceeded',
  internal: 'Internal server error',
  notFound: 'Not found',
  methodNotAllowed: 'Method not allowed',
  // Requests the HTTP parser refuses before any route sees them (gateway http/client-error.ts).
  headersTooLarge: 'Request header fields too large',
  badRequest: 'Malformed HTTP request',
  // A path with dot segments, encoded dots or slashes, or `//`, before any other check (gateway http/request-path.ts).
  invalidPath: 'Invalid request path',
  requestTimeout: 'Request timeout',

  gameNotFound: 'Game not found',
  cardNotFound: 'Card not found',
  invalidCardId: 'Invalid card ID format',
  hitsPerPage: `hitsPerPage must be an integer between ${HITS_PER_PAGE.min} and ${HITS_PER_PAGE.max}`,
  invalidCursor: 'Invalid cursor',
  // GET /games/{slug}/changes (decisions.md "Card changes").
  sinceRequired: 'since is required',
  versionGone: 'Version no longer available',
  searchIndexNotFound: 'Search index not found',
  // GET /decks/changes (decisions.md "Deck changes"): a cursor older than the kept removals.
  deckCursorGone: 'Cursor no longer available; enumerate the public decks again',

  gameIdRequired: 'gameId query parameter is required',
  limitNotInteger: 'limit must be an integer',
  sortInvalid: `sort must be one of ${DECK_SORTS.join(', ')}`,
  updatedSinceInvalid: 'updatedSince must be an ISO 8601 date-time',
  detailsBody: 'Request body must be JSON with an ids array of deck id strings',
  detailsTooMany: `At most ${DECK_DETAILS_MAX_IDS} ids per request`,

  deckNotFound: 'Deck not found or not public',
  deckFormatUnknown: 'Unknown format. Supported: json, text, ga-tts',
  gaTtsOnly: 'ga-tts format is only available for grand-archive decks',
  textFormatRequired: 'format is required',
  textFormatUnknown: 'Unknown format. Supported: limitless, snapdeck',
} as const;

export type ErrorString = (typeof ERRORS)[keyof typeof ERRORS];

/** The HTTP status that goes with each error string. */
export const ERROR_STATUS: Record<keyof typeof ERRORS, number> = {
  apiKeyRequired: 401,
  invalidApiKey: 401,
  insufficientScope: 403,
  rateLimitExceeded: 429,
  internal: 500,
  notFound: 404,
  methodNotAllowed: 405,
  headersTooLarge: 431,
  badRequest: 400,
  invalidPath: 400,
  requestTimeout: 408,
  gameNotFound: 404,
  cardNotFound: 404,
  searchIndexNotFound: 404,
  invalidCardId: 400,
  hitsPerPage: 400,
  invalidCursor: 400,
  sinceRequired: 400,
  versionGone: 410,
  deckCursorGone: 410,
  gameIdRequired: 400,
  limitNotInteger: 400,
  sortInvalid: 400,
  updatedSinceInvalid: 400,
  detailsBody: 400,
  detailsTooMany: 400,
  deckNotFound: 404,
  deckFormatUnknown: 400,
  gaTtsOnly: 400,
  textFormatRequired: 400,
  textFormatUnknown: 400,
};

export type ErrorCode = keyof typeof ERRORS;
