import { ERRORS, type ErrorCode } from '../errors.ts';
import { GAMES, GAME_SLUGS, type GameSlug } from '../games.ts';
import { CARD_ID_PATTERN } from '../games.ts';
import { DECK_DETAILS_MAX_IDS, DECK_LIST_LIMIT, DECK_SORTS, HITS_PER_PAGE, QUOTA_WINDOW_SECONDS } from '../limits.ts';
import { OPERATOR_DEFAULTS } from '../operator-defaults.ts';
import { DEPRECATION_HEADERS, RATE_LIMIT_HEADERS, headerObjects, type HeaderName } from './headers.ts';
import { componentPrefix, componentSchemas, openSchema, type JsonSchema } from './schemas.ts';

export const OPENAPI_VERSION = '1.0.0';

export interface OpenApiOptions {
  /**
   * Closed response schemas (`additionalProperties: false`, closed enums) for the project's own
   * tests. The published document is open (interface.md §9.2: fields may be added).
   */
  strict?: boolean;
  /**
   * Whether the operator deprecated an operation (`snapdeck serve --deprecations`): `method` is
   * GET or POST, `route` the gateway's route pattern (`/v1/games/:slug/cards`). Deprecated
   * operations are marked `deprecated: true` and document the Deprecation, Sunset and Link headers.
   */
  isDeprecated?: (method: string, route: string) => boolean;
}

type Media = Record<string, { schema: JsonSchema }>;

interface ErrorSpec {
  status: number;
  description: string;
  errors: ErrorCode[];
}

interface OperationSpec {
  path: string;
  /** GET when absent. Every 200 of a GET has an ETag and answers If-None-Match with 304. */
  method?: 'post';
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /**
   * Who may call it, and what its quota counts (rate-limit headers): `key` (when absent) needs
   * X-API-Key and is metered per key; `address` needs no key and is metered per client address;
   * `anyone` needs no key and is not metered.
   */
  access?: 'key' | 'address' | 'anyone';
  parameters?: unknown[];
  requestBody?: unknown;
  ok: { description: string; content: Media };
  /** The errors particular to this operation: 401 and 429 follow from `access`, 500 is on every one. */
  errors?: ErrorSpec[];
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const jsonOf = (schema: JsonSchema): Media => ({ 'application/json': { schema } });
const quoted = (codes: ErrorCode[]) => codes.map((code) => `"${ERRORS[code]}"`).join(', ');

const TAGS = {
  games: 'Games',
  cards: 'Cards',
  decks: 'Decks',
  meta: 'Meta',
  game: (slug: GameSlug) => `${GAMES.find((g) => g.slug === slug)!.displayName} cards`,
};

const err = (status: number, description: string, ...errors: ErrorCode[]): ErrorSpec => ({ status, description, errors });
const KEYED_ERRORS = [
  err(401, 'The X-API-Key header is missing, or the key is unknown, malformed or revoked', 'apiKeyRequired', 'invalidApiKey'),
];
const COMMON_ERRORS = [
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

function operations(): OperationSpec[] {
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
    {
      path: '/decks/public',
      operationId: 'listPublicDecks',
      summary: "Enumerate a game's public decks",
      description:
        'Minimal summaries of public decks, keyset-paged (needs the scope decks:browse:public). Without updatedSince: descending by the sort field, ties by id. ' +
        'With updatedSince: only decks updated at or after it (inclusive: dedupe by id and updatedAt), ascending by updatedAt, ties by id. ' +
        'A deck that stops being public vanishes without a tombstone: detect removals by a periodic full enumeration.',
      tag: TAGS.decks,
      parameters: [param('GameId'), param('Limit'), param('StartAfter'), param('Sort'), param('UpdatedSince')],
      ok: { description: 'A page of deck summaries', content: jsonOf(ref('DeckPublicListResponse')) },
      errors: [
        err(400, 'A parameter is missing or invalid (updatedSince with a sort other than updatedAt also answers "gameId query parameter is required", with a detail), or startAfter is not a cursor of this listing', 'gameIdRequired', 'limitNotInteger', 'sortInvalid', 'updatedSinceInvalid', 'invalidCursor'),
        err(403, 'The key lacks the scope decks:browse:public', 'insufficientScope'),
        err(404, 'No public game has this gameId', 'gameNotFound'),
      ],
    },
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

const PARAMETERS = {
  Slug: { name: 'slug', in: 'path', required: true, description: 'The game.', schema: { type: 'string', enum: [...GAME_SLUGS] } },
  CardId: {
    name: 'cardId',
    in: 'path',
    required: true,
    description: 'The card id (digimon BT1-010, gundam GD01-001, chrono-core WNR01-001, grand-archive lowercase slugs).',
    schema: { type: 'string', pattern: CARD_ID_PATTERN.source },
  },
  HitsPerPage: {
    name: 'hitsPerPage',
    in: 'query',
    required: false,
    description: 'Hits per page. Keep it for the whole walk: a cursor is valid only with the hitsPerPage that produced it.',
    schema: { type: 'integer', minimum: HITS_PER_PAGE.min, maximum: HITS_PER_PAGE.max, default: HITS_PER_PAGE.default },
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The opaque cursor of the previous page; omit it (or send it empty) for the first page. Never parse or build one.',
    schema: { type: 'string' },
  },
  GameId: { name: 'gameId', in: 'query', required: true, description: 'The game whose decks to list.', schema: { type: 'string', enum: [...GAME_SLUGS] } },
  Limit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Page size; values outside ${DECK_LIST_LIMIT.min}..${DECK_LIST_LIMIT.max} are clamped, a non-integer is a 400.`,
    schema: { type: 'integer', default: DECK_LIST_LIMIT.default },
  },
  StartAfter: {
    name: 'startAfter',
    in: 'query',
    required: false,
    description: "The previous page's nextCursor (opaque); omit it, or send it empty, for the first page.",
    schema: { type: 'string' },
  },
  Sort: {
    name: 'sort',
    in: 'query',
    required: false,
    description: 'Sort field (descending without updatedSince). With updatedSince only updatedAt is allowed.',
    schema: { type: 'string', enum: [...DECK_SORTS], default: DECK_SORTS[0] },
  },
  UpdatedSince: {
    name: 'updatedSince',
    in: 'query',
    required: false,
    description: 'Only decks with updatedAt at or after this ISO 8601 date-time with a time zone (inclusive), in ascending updatedAt order.',
    schema: { type: 'string', format: 'date-time' },
  },
  DeckId: { name: 'deckId', in: 'path', required: true, description: 'The deck id (UUID v4, any letter case).', schema: { type: 'string', format: 'uuid' } },
  DeckFormat: {
    name: 'format',
    in: 'query',
    required: false,
    description: 'The representation: json (default), text, or ga-tts (grand-archive decks only). The Accept header is ignored.',
    schema: { type: 'string', enum: ['json', 'text', 'ga-tts'], default: 'json' },
  },
  TextFormat: { name: 'format', in: 'query', required: true, description: 'The text layout.', schema: { type: 'string', enum: ['limitless', 'snapdeck'] } },
  DeckToken: {
    name: 'token',
    in: 'query',
    required: false,
    description: 'For a private deck: a share token (st_…, valid 24 hours) or a private link (pd_…, never expires). Not checked for a public deck.',
    schema: { type: 'string' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An ETag of a previous response: 304 Not Modified, without a body, when it still matches.',
    schema: { type: 'string' },
  },
} as const;

const INFO_DESCRIPTION = `Card catalogs and user decks of trading card games, for partners who sync them.

- **Envelope:** a JSON success is \`{"data": …}\`, an error \`{"error": "<documented string>", "detail"?: "…"}\`. Switch on the status and the documented string, never on \`detail\`.
- **Additive changes ship without notice:** new fields in responses, new values of open-ended enums (game slugs, card types …), new operations. The response schemas of this document are open: ignore what you do not know.
- **Keys:** send \`X-API-Key: sd_live_…\`. Listing decks needs the scope \`decks:browse:public\`, fetching deck details \`decks:read:public\`.
- **Quota:** fixed ${QUOTA_WINDOW_SECONDS / 60}-minute windows aligned to the clock, per key (GET /decks/{deckId}: per client address). Every metered response carries \`RateLimit-Policy\`/\`RateLimit\` and \`RateLimit-Limit\`/\`-Remaining\`/\`-Reset\`; a 429 adds \`Retry-After\`.
- **Caching:** every 200 of a GET has a strong \`ETag\`; send it in \`If-None-Match\` to get 304.
- **Deprecation:** an operation the operator deprecates is marked \`deprecated\` here and answers with \`Deprecation\`, \`Sunset\` and \`Link: <…>; rel="sunset"\` for at least 6 months before it goes.
- **Errors outside an operation:** an unknown route under /v1 is 404 "${ERRORS.notFound}"; a method a route does not have is 405 "${ERRORS.methodNotAllowed}" with \`Allow\`.

The license below covers this description; the card data belongs to the games' publishers.`;

/**
 * The OpenAPI 3.1 description of /v1, generated from the contract's zod schemas, limits and error
 * strings, so the document cannot drift from what the gateway serves and is tested against.
 */
export function buildOpenApiDocument(options: OpenApiOptions = {}): Record<string, unknown> {
  const { schemas, responseNames } = componentSchemas();
  if (!options.strict) for (const name of responseNames) schemas[name] = openSchema(schemas[name]) as JsonSchema;

  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations()) {
    const method = op.method ?? 'get';
    const access = op.access ?? 'key';
    const etag = method === 'get';
    const route = `/v1${op.path.replace(/\{(\w+)\}/g, ':$1')}`;
    const deprecated = options.isDeprecated?.(method.toUpperCase(), route) ?? false;
    const always: HeaderName[] = ['X-Request-Id', ...(deprecated ? DEPRECATION_HEADERS : [])];
    const isMetered = access !== 'anyone';
    const metered = isMetered ? RATE_LIMIT_HEADERS : [];
    const responses: Record<string, unknown> = {
      200: {
        description: op.ok.description,
        headers: headerObjects([...always, 'Cache-Control', ...(etag ? (['ETag'] as const) : []), ...metered]),
        content: op.ok.content,
      },
    };
    if (etag) {
      responses[304] = {
        description: 'Not modified: the If-None-Match ETag still matches; no body',
        headers: headerObjects([...always, 'ETag', ...metered], ['Cache-Control']),
      };
    }
    for (const e of [...(op.errors ?? []), ...(access === 'key' ? KEYED_ERRORS : []), ...(isMetered ? COMMON_ERRORS : COMMON_ERRORS.filter((c) => c.status !== 429))]) {
      // A 401 is answered before the quota is counted; a 429 always reports it.
      const required: HeaderName[] = [...always, 'Cache-Control', ...(e.status === 429 ? [...metered, 'Retry-After' as const] : [])];
      const optional: HeaderName[] = e.status === 401 || e.status === 429 ? [] : [...metered];
      // An operation's own 400 and the path check's share one response: descriptions joined.
      const before = responses[e.status] as { description: string } | undefined;
      responses[e.status] = {
        description: `${before ? `${before.description}. Or: ` : ''}${e.description}. Error strings: ${quoted(e.errors)}`,
        headers: headerObjects(required, optional),
        content: jsonOf(ref('Error')),
      };
    }
    // Decided before any route (the HTTP server's own answers): a new request id, no route's
    // headers, and the connection is closed.
    responses[408] = {
      description: `The request headers were not complete within ${OPERATOR_DEFAULTS.headersTimeoutMs / 1000} s, or the whole request within ${OPERATOR_DEFAULTS.requestTimeoutMs / 1000} s of its first byte (decided before any route; the connection is closed). Error strings: ${quoted(['requestTimeout'])}`,
      headers: headerObjects(['X-Request-Id', 'Cache-Control']),
      content: jsonOf(ref('Error')),
    };
    responses[431] = {
      description: `The request line and headers are over 16 KiB (refused before any route; the connection is closed). Error strings: ${quoted(['headersTooLarge'])}`,
      headers: headerObjects(['X-Request-Id', 'Cache-Control']),
      content: jsonOf(ref('Error')),
    };
    responses.default = {
      description: `Any other error: 404 ${quoted(['notFound'])} (unknown route), 405 ${quoted(['methodNotAllowed'])} (with Allow), 400 ${quoted(['badRequest'])} (bytes that are not HTTP), 400 ${quoted(['invalidPath'])} (a path not in normal form, on any path)`,
      headers: headerObjects(always, ['Cache-Control']),
      content: jsonOf(ref('Error')),
    };
    const parameters = [...(op.parameters ?? []), ...(etag ? [param('IfNoneMatch')] : [])];
    paths[op.path] ??= {};
    paths[op.path]![method] = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: [op.tag],
      ...(deprecated ? { deprecated: true } : {}),
      ...(access === 'key' ? {} : { security: [] }),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.requestBody ? { requestBody: op.requestBody } : {}),
      responses,
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'snapdeck API',
      version: OPENAPI_VERSION,
      summary: 'Trading-card-game card catalogs and decks',
      description: INFO_DESCRIPTION,
      contact: { name: 'The snapdeck operator who issued your API key' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/v1', description: 'This gateway, version 1 of the API' }],
    tags: [
      { name: TAGS.games, description: 'The supported games.' },
      { name: TAGS.cards, description: 'Card catalogs of any game: walk every card, or fetch one.' },
      ...GAME_SLUGS.map((slug) => ({ name: TAGS.game(slug), description: `The card operations for ${slug}, typed with its own card and hit schemas.` })),
      { name: TAGS.decks, description: 'Public decks: enumerate, fetch in bulk, fetch or export one.' },
      { name: TAGS.meta, description: 'About the API itself.' },
    ],
    security: [{ apiKey: [] }],
    paths,
    components: {
      schemas,
      parameters: PARAMETERS,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A key from the operator: sd_live_ then 32 lowercase hex digits.' },
      },
    },
  };
}
