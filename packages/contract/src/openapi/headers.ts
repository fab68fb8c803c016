import { QUOTA_WINDOW_SECONDS } from '../limits.ts';

/**
 * Every response header a client may act on. Values are described with the
 * JSON Schema of the header's text (integers are digit strings on the wire: clients and
 * validators read them as numbers).
 */
export const HEADERS = {
  'X-Request-Id': {
    description: 'Id of this request (the X-Request-Id sent, when it is 1–128 characters of `A-Za-z0-9._-`, else a new UUID). Quote it when reporting a problem.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
  },
  ETag: {
    description: 'Strong entity tag of the representation; send it back in If-None-Match to get 304.',
    schema: { type: 'string', pattern: '^"[^"]+"$' },
  },
  'Cache-Control': {
    description: 'What caches may do with this response (errors: no-store).',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: `The quota of the key (or of the client address): q requests per window of w = ${QUOTA_WINDOW_SECONDS} seconds (IETF draft RateLimit header fields).`,
    schema: { type: 'string', pattern: `^"default";q=\\d{1,15};w=${QUOTA_WINDOW_SECONDS}$` },
  },
  RateLimit: {
    description: 'Requests remaining (r) in the current window and seconds until it ends (t) (IETF draft RateLimit header fields).',
    schema: { type: 'string', pattern: '^"default";r=\\d{1,15};t=\\d{1,15}$' },
  },
  'RateLimit-Limit': { description: 'The quota per 15-minute window (older header family).', schema: { type: 'integer', minimum: 1 } },
  'RateLimit-Remaining': { description: 'Requests remaining in the current window (older header family).', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the current window ends (older header family).', schema: { type: 'integer', minimum: 1 } },
  'Retry-After': {
    description: 'Seconds until the window ends and requests are admitted again (not the window length).',
    schema: { type: 'integer', minimum: 1 },
  },
  Deprecation: {
    description: 'Sent by an operation the operator has deprecated: when it was announced, `@<epoch seconds>` (RFC 9745).',
    schema: { type: 'string', pattern: '^@-?\\d+$' },
  },
  Sunset: {
    description: 'Sent by a deprecated operation: the HTTP date after which it stops working (RFC 8594).',
    schema: { type: 'string' },
  },
  Link: {
    description: 'Sent by a deprecated operation: `<url>; rel="sunset"`, a page about the deprecation and what to use instead.',
    schema: { type: 'string' },
  },
} as const;

export type HeaderName = keyof typeof HEADERS;

/** The rate-limit fields every metered response carries (429 included). */
export const RATE_LIMIT_HEADERS: readonly HeaderName[] = ['RateLimit-Policy', 'RateLimit', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
export const DEPRECATION_HEADERS: readonly HeaderName[] = ['Deprecation', 'Sunset', 'Link'];

/**
 * A response's `headers` map: `required` ones are always sent, the others when they apply.
 * Inline Header Objects, not $refs: whether a header is required depends on the response, and a
 * Reference Object may not carry `required` beside its $ref.
 */
export function headerObjects(required: readonly HeaderName[], optional: readonly HeaderName[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of [...required, ...optional]) out[name] = { ...HEADERS[name], required: required.includes(name) };
  return out;
}
