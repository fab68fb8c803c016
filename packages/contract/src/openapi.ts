import { z } from 'zod';
import { CARD_MODELS } from './cards/index.ts';
import { ERRORS } from './errors.ts';
import { GAME_SLUGS } from './games.ts';
import {
  cardsPageResponse, deckDetailsRequest, deckDetailsResponse, deckResponse, errorBody, gaTtsResponse, gamesResponse,
  publicDecksResponse,
} from './schemas.ts';

export const OPENAPI_VERSION = '1.0.0';

type JsonSchema = Record<string, unknown>;

function schema(type: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(type, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ content: { 'application/json': { schema: ref(name) } } });
const text = { content: { 'text/plain': { schema: { type: 'string' } } } };

function errorResponse(description: string, strings: string[]) {
  return { description: `${description}. Error strings: ${strings.map((s) => `"${s}"`).join(', ')}`, ...json('Error') };
}

const keyed = {
  401: errorResponse('API key missing or invalid', [ERRORS.apiKeyRequired, ERRORS.invalidApiKey]),
  429: errorResponse('Quota of the 15-minute window used up; see Retry-After', [ERRORS.rateLimitExceeded]),
  500: errorResponse('Internal error; retry with exponential backoff', [ERRORS.internal]),
};

const slugParam = { name: 'slug', in: 'path', required: true, schema: { type: 'string', enum: [...GAME_SLUGS] } };

/**
 * The OpenAPI 3.1 description of /v1, generated from the same zod schemas the gateway is tested
 * against, so the document cannot drift from what is served.
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  const components: Record<string, JsonSchema> = {
    Error: schema(errorBody),
    GamesResponse: schema(gamesResponse),
    DeckPublicListResponse: schema(publicDecksResponse),
    DeckDetailsRequest: schema(deckDetailsRequest),
    DeckDetailsResponse: schema(deckDetailsResponse),
    DeckResponse: schema(deckResponse),
    GaTtsResponse: schema(gaTtsResponse),
  };
  for (const slug of GAME_SLUGS) {
    const model = CARD_MODELS[slug];
    const name = slug.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
    components[`${name}Card`] = schema(z.object({ data: model.card }));
    components[`${name}CardsPage`] = schema(cardsPageResponse(model.hit));
  }
  const perGame = (suffix: string) => ({ oneOf: GAME_SLUGS.map((slug) => ref(`${slug.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase())}${suffix}`)) });

  return {
    openapi: '3.1.0',
    info: {
      title: 'snapdeck API',
      version: OPENAPI_VERSION,
      description: 'Trading-card-game card catalogs and decks. Every JSON success is {data}, every error {error}.',
    },
    servers: [{ url: '/v1' }],
    components: {
      schemas: components,
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    },
    security: [{ apiKey: [] }],
    paths: {
      '/games': {
        get: { operationId: 'listGames', summary: 'List the supported games', responses: { 200: { description: 'Games', ...json('GamesResponse') }, ...keyed } },
      },
      '/games/{slug}/cards': {
        get: {
          operationId: 'walkCards',
          summary: 'Walk every card of a game, page by page',
          parameters: [
            slugParam,
            { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'Opaque cursor from the previous page.' },
            { name: 'hitsPerPage', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 1000, default: 1 } },
          ],
          responses: {
            200: { description: 'One page of hits; cursor is null on the last page', content: { 'application/json': { schema: perGame('CardsPage') } } },
            304: { description: 'Not modified (If-None-Match)' },
            400: errorResponse('Bad hitsPerPage or cursor', [ERRORS.hitsPerPage, ERRORS.invalidCursor]),
            404: errorResponse('Unknown game', [ERRORS.gameNotFound]),
            ...keyed,
          },
        },
      },
      '/games/{slug}/cards/{cardId}': {
        get: {
          operationId: 'getCard',
          summary: 'Fetch one card',
          parameters: [slugParam, { name: 'cardId', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' } }],
          responses: {
            200: { description: 'The card', content: { 'application/json': { schema: perGame('Card') } } },
            304: { description: 'Not modified (If-None-Match)' },
            400: errorResponse('Malformed card id', [ERRORS.invalidCardId]),
            404: errorResponse('Unknown game or card', [ERRORS.gameNotFound, ERRORS.cardNotFound]),
            ...keyed,
          },
        },
      },
      '/decks/public': {
        get: {
          operationId: 'listPublicDecks',
          summary: "Enumerate a game's public decks (scope decks:browse:public)",
          parameters: [
            { name: 'gameId', in: 'query', required: true, schema: { type: 'string' } },
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', default: 20 }, description: 'Clamped to 1..50.' },
            { name: 'startAfter', in: 'query', required: false, schema: { type: 'string' } },
            { name: 'sort', in: 'query', required: false, schema: { type: 'string', enum: ['updatedAt', 'copyCount', 'viewCount', 'likeCount', 'createdAt'], default: 'updatedAt' } },
            { name: 'updatedSince', in: 'query', required: false, schema: { type: 'string', format: 'date-time' } },
          ],
          responses: {
            200: { description: 'A page of deck summaries', ...json('DeckPublicListResponse') },
            400: errorResponse('Bad parameters', [ERRORS.gameIdRequired, ERRORS.limitNotInteger, ERRORS.sortInvalid, ERRORS.updatedSinceInvalid, ERRORS.invalidCursor]),
            403: errorResponse('Key lacks decks:browse:public', [ERRORS.insufficientScope]),
            404: errorResponse('Unknown game', [ERRORS.gameNotFound]),
            ...keyed,
          },
        },
      },
      '/decks/details': {
        post: {
          operationId: 'getDeckDetails',
          summary: 'Fetch up to 50 decks at once (scope decks:read:public)',
          requestBody: { required: true, ...json('DeckDetailsRequest') },
          responses: {
            200: { description: 'Decks found, and the ids that were not', ...json('DeckDetailsResponse') },
            400: errorResponse('Bad body', [ERRORS.detailsBody, ERRORS.detailsTooMany]),
            403: errorResponse('Key lacks decks:read:public', [ERRORS.insufficientScope]),
            ...keyed,
          },
        },
      },
      '/decks/{deckId}': {
        get: {
          operationId: 'getDeck',
          summary: 'Fetch one deck (no key needed)',
          security: [],
          parameters: [
            { name: 'deckId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
            { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json', 'text', 'ga-tts'], default: 'json' } },
            { name: 'token', in: 'query', required: false, schema: { type: 'string' } },
          ],
          responses: {
            200: {
              description: 'The deck',
              content: { 'application/json': { schema: { oneOf: [ref('DeckResponse'), ref('GaTtsResponse')] } }, ...text.content },
            },
            304: { description: 'Not modified (If-None-Match)' },
            400: errorResponse('Unknown format', [ERRORS.deckFormatUnknown, ERRORS.gaTtsOnly]),
            404: errorResponse('Deck missing, private without a valid token, or deleted', [ERRORS.deckNotFound]),
            429: keyed[429],
            500: keyed[500],
          },
        },
      },
      '/decks/{deckId}/text': {
        get: {
          operationId: 'getDeckText',
          summary: 'Export a deck as text',
          parameters: [
            { name: 'deckId', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'format', in: 'query', required: true, schema: { type: 'string', enum: ['limitless', 'snapdeck'] } },
            { name: 'token', in: 'query', required: false, schema: { type: 'string' } },
          ],
          responses: {
            200: { description: 'The deck list', ...text },
            304: { description: 'Not modified (If-None-Match)' },
            400: errorResponse('Missing or unknown format', [ERRORS.textFormatRequired, ERRORS.textFormatUnknown]),
            404: errorResponse('Deck missing or not reachable', [ERRORS.deckNotFound]),
            ...keyed,
          },
        },
      },
    },
  };
}
