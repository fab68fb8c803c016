import { CLIENT_HEADER } from '@snapdeck/contract';
import { SECURITY_HEADERS, requestIdOf } from '../http/base-headers.ts';
import type { Step } from '../http/pipeline.ts';

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS = `X-API-Key, Content-Type, If-None-Match, X-Request-Id, ${CLIENT_HEADER}`;
const EXPOSED_HEADERS = 'ETag, Retry-After, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id, Deprecation, Sunset, Link';

/**
 * Headers every response carries (decisions.md): nosniff and CORS for any origin, plus a request
 * id (the caller's X-Request-Id when it is sane, a new one otherwise).
 */
export const commonHeaders: Step = (c, next) => {
  const requestId = requestIdOf(c.req.header('x-request-id'));
  c.set('requestId', requestId);
  // Every response is made by http/response.ts, which starts from these (errors included).
  // A literal, not `...SECURITY_HEADERS`: the spread made every request's header object slower
  // to build and to extend (bench:hotpath, "card page hitsPerPage=100"; docs/benchmarks.md).
  c.set('headers', {
    'X-Content-Type-Options': SECURITY_HEADERS['X-Content-Type-Options'],
    'Access-Control-Allow-Origin': SECURITY_HEADERS['Access-Control-Allow-Origin'],
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
    'X-Request-Id': requestId,
  });
  return next();
};

/** Answers CORS preflights (after the path check: a preflight to a path not in normal form is a 400 too). */
export const corsPreflight: Step = (c, next) => {
  if (c.req.method !== 'OPTIONS') return next();
  return c.body(null, 204, {
    'Access-Control-Allow-Origin': SECURITY_HEADERS['Access-Control-Allow-Origin'],
    'Access-Control-Allow-Methods': ALLOWED_METHODS,
    'Access-Control-Allow-Headers': ALLOWED_HEADERS,
    'Access-Control-Max-Age': '86400',
    'X-Content-Type-Options': SECURITY_HEADERS['X-Content-Type-Options'],
    'X-Request-Id': c.get('requestId'),
  });
};
