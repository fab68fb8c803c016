/** Every operation of /v1, as OperationSpecs (operation-spec.ts), in the document's order. */
import { ERRORS } from '../errors.ts';
import { CARD_ID_PATTERN, GAMES, GAME_SLUGS } from '../games.ts';
import { DECK_DETAILS_MAX_IDS, QUOTA_WINDOW_SECONDS } from '../limits.ts';
import { TAGS, err, jsonOf, param, ref, type OperationSpec } from './operation-spec.ts';
import { componentPrefix } from './schemas.ts';
import { changesOperations } from './changes.ts';
import { deckChangesOperation } from './deck-changes.ts';
import { searchOperations } from './search-operations.ts';

export const KEYED_ERRORS = [
  err(401, 'The X-API-Key header is missing, or the key is unknown, malformed or revoked', 'apiKeyRequired', 'invalidApiKey'),
];
export const COMMON_ERRORS = [
  // Checked on every path before anything else (decisions.md), so every operation can answer it.
  err(400, 'The request path is not in normal form: a `.` or `..` segment (plain or percent-encoded), an encoded `/`, or `//`; refused before any other check', 'invalidPath'),
  err(429, `The quota of the current ${QUOTA_WINDOW_SECONDS / 60}-minute window is used up; retry after Retry-After seconds`, 'rateLimitExceeded'),
  err(500, 'Internal error (the server logs why, under the X-Request-Id); retry with exponential backoff', 'internal'),
];

const walkDescription = (what: string) =>
  `Walks ${what}, page by page, for a complete index synchronization. Start without \`cursor\`, then pass each page's \`cursor\` until it is null. ` +
  'A cursor is opaque and valid only for the game and hitsPerPage that produced it; it pins the snapshot version the walk started on. ' +
  `A 400 "${ERRORS.invalidCursor}" (tampered, foreign, or for a version no longer kept after a rebuild) means: restart from the first page. ` +
  'Order is by card id within one walk. Pages reached by cursor are immutable and may be cached for a year.';

export function operations(): OperationSpec[] {
  const walkErrors = [err(400, 'hitsPerPage out of range, or a cursor to restart from the first page', 'hitsPerPage', 'invalidCursor')];
  const cardErrors = [err(400, `The card id does not match ${CARD_ID_PATTERN.source}`, 'invalidCardId')];
  const deckNotFound = err(404, 'No such deck, a private deck without a valid token, or a deleted deck', 'deckNotFound');
  const plainText = { 'text/plain': { schema: { type: 'string' } } };
  return [
    {
      path: '/games',
      operationId: 'listGames',
      summary: 'List the supported games',
      description: 'The public games, with the name of the search index of each. Games may be added at any time (an additive change).',
      tag: TAGS.games,
      ok: { description: 'The supported games', content: jsonOf(ref('GamesResponse')) },
    },
    {
      path: '/games/{slug}/cards',
      operationId: 'walkCards',
      summary: 'Walk every card of a game',
      description: `${walkDescription('every card of any game')} The hit shape depends on the game: the per-game operations (such as walkDigimonCards) name it.`,
      tag: TAGS.cards,
      parameters: [param('Slug'), param('HitsPerPage'), param('Cursor')],
      ok: { description: 'One page of hits of the game', content: jsonOf({ anyOf: GAME_SLUGS.map((slug) => ref(`${componentPrefix(slug)}CardsPage`)) }) },
      errors: [...walkErrors, err(404, 'No public game has this slug', 'gameNotFound')],
    },
    {
      path: '/games/{slug}/cards/{cardId}',
      operationId: 'getCard',
      summary: 'Fetch one card of a game',
      description: 'One full card. Its shape depends on the game: the per-game operations (such as getDigimonCard) name it.',
      tag: TAGS.cards,
      parameters: [param('Slug'), param('CardId')],
      ok: { description: 'The card', content: jsonOf({ anyOf: GAME_SLUGS.map((slug) => ref(`${componentPrefix(slug)}CardResponse`)) }) },
      errors: [...cardErrors, err(404, 'No public game has this slug, or the game has no such card', 'gameNotFound', 'cardNotFound')],
    },
    ...GAME_SLUGS.flatMap((slug): OperationSpec[] => {
      const prefix = componentPrefix(slug);
      const name = GAMES.find((g) => g.slug === slug)!.displayName;
      return [
        {
          path: `/games/${slug}/cards`,
          operationId: `walk${prefix}Cards`,
          summary: `Walk every ${name} card`,
          description: `${walkDescription(`every ${name} card`)} The same operation as walkCards with slug=${slug}, typed with ${prefix}Hit.`,
          tag: TAGS.game(slug),
          parameters: [param('HitsPerPage'), param('Cursor')],
          ok: { description: `One page of ${name} hits`, content: jsonOf(ref(`${prefix}CardsPage`)) },
          errors: walkErrors,
        },
        {
          path: `/games/${slug}/cards/{cardId}`,
          operationId: `get${prefix}Card`,
          summary: `Fetch one ${name} card`,
          description: `One full ${name} card. The same operation as getCard with slug=${slug}, typed with ${prefix}Card.`,
          tag: TAGS.game(slug),
          parameters: [param('CardId')],
          ok: { description: `The ${name} card`, content: jsonOf(ref(`${prefix}CardResponse`)) },
          errors: [...cardErrors, err(404, 'The game has no such card', 'cardNotFound')],
        },
      ];
    }),
    ...changesOperations(),
    {
      path: '/decks/public',
      operationId: 'listPublicDecks',
      summary: "Enumerate a game's public decks",
      description:
        'Minimal summaries of public decks, keyset-paged (needs the scope decks:browse:public). Without updatedSince: descending by the sort field, ties by id. ' +
        'With updatedSince: only decks updated at or after it (inclusive: dedupe by id and updatedAt), ascending by updatedAt, ties by id. ' +
        'A deck that stops being public vanishes without a tombstone. updatedSince compares the imported updatedAt, so it cannot promise a complete copy: a deck imported after a sync with an older updatedAt is never listed to that partner, and removals are not listed at all. ' +
        'To keep a copy exact, follow GET /decks/changes (commit order, with removals) instead.',
      tag: TAGS.decks,
      parameters: [param('GameId'), param('Limit'), param('StartAfter'), param('Sort'), param('UpdatedSince')],
      ok: { description: 'A page of deck summaries', content: jsonOf(ref('DeckPublicListResponse')) },
      errors: [
        err(400, 'A parameter is missing or invalid (updatedSince with a sort other than updatedAt also answers "gameId query parameter is required", with a detail), or startAfter is not a cursor of this listing', 'gameIdRequired', 'limitNotInteger', 'sortInvalid', 'updatedSinceInvalid', 'invalidCursor'),
        err(403, 'The key lacks the scope decks:browse:public', 'insufficientScope'),
        err(404, 'No public game has this gameId', 'gameNotFound'),
      ],
    },
    deckChangesOperation(),
    {
      path: '/decks/details',
      method: 'post',
      operationId: 'getDeckDetails',
      summary: `Fetch up to ${DECK_DETAILS_MAX_IDS} decks at once`,
      description:
        `Minimal details of up to ${DECK_DETAILS_MAX_IDS} decks by id (needs the scope decks:read:public). Decks come back in no particular order: match them by id. ` +
        'Malformed, private and missing ids are listed in unresolved, without distinction; this operation never answers 404 for a deck.',
      tag: TAGS.decks,
      requestBody: { required: true, description: 'The deck ids, duplicates answered once.', content: jsonOf(ref('DeckDetailsRequest')) },
      ok: { description: 'The decks found, and the ids that were not', content: jsonOf(ref('DeckDetailsResponse')) },
      errors: [
        err(400, 'The body is not JSON with an ids array of strings, or has too many ids', 'detailsBody', 'detailsTooMany'),
        err(403, 'The key lacks the scope decks:read:public', 'insufficientScope'),
      ],
    },
    {
      path: '/decks/{deckId}',
      operationId: 'getDeck',
      summary: 'Fetch one deck',
      description:
        'One deck, without an API key (limited per client address). A public deck is returned whatever the token; a private one needs a valid share token or pd_ link. ' +
        'format=json (default) is the full deck, format=text a plain-text list, format=ga-tts (grand-archive only) the deck grouped by zone with full card data.',
      tag: TAGS.decks,
      access: 'address',
      parameters: [param('DeckId'), param('DeckFormat'), param('DeckToken')],
      ok: {
        description: 'The deck (application/json for json and ga-tts, text/plain for text)',
        content: { ...jsonOf({ anyOf: [ref('DeckResponse'), ref('GaTtsResponse')] }), ...plainText },
      },
      errors: [err(400, 'Unknown format, or ga-tts asked of a deck of another game', 'deckFormatUnknown', 'gaTtsOnly'), deckNotFound],
    },
    {
      path: '/decks/{deckId}/text',
      operationId: 'getDeckText',
      summary: 'Export a deck as text',
      description:
        'A deck as plain text: format=snapdeck is `{qty} {name} ({GAME}) ({CARD-ID})` per card entry, format=limitless the Limitless TCG import layout `{qty} {name} {cardId}`. ' +
        'Private decks need their token.',
      tag: TAGS.decks,
      parameters: [param('DeckId'), param('TextFormat'), param('DeckToken')],
      ok: { description: 'The deck list', content: plainText },
      errors: [err(400, 'format is missing or unknown', 'textFormatRequired', 'textFormatUnknown'), deckNotFound],
    },
    ...searchOperations(),
    {
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description: 'The OpenAPI 3.1 description of /v1, as served by this gateway (operations its operator has deprecated are marked). No key needed.',
      tag: TAGS.meta,
      access: 'anyone',
      ok: { description: 'The OpenAPI document', content: jsonOf({ type: 'object' }) },
    },
  ];
}
