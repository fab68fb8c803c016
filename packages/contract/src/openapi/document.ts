import { ERRORS } from '../errors.ts';
import { GAME_SLUGS } from '../games.ts';
import { QUOTA_WINDOW_SECONDS } from '../limits.ts';
import { OPERATOR_DEFAULTS } from '../operator-defaults.ts';
import { DEPRECATION_HEADERS, RATE_LIMIT_HEADERS, headerObjects, type HeaderName } from './headers.ts';
import { TAGS, jsonOf, param, quoted, ref } from './operation-spec.ts';
import { COMMON_ERRORS, KEYED_ERRORS, operations } from './operations.ts';
import { PARAMETERS } from './parameters.ts';
import { componentSchemas, openSchema, type JsonSchema } from './schemas.ts';

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
      { name: TAGS.search, description: 'Client-side card search: each game\'s index, served as immutable files per snapshot version.' },
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
