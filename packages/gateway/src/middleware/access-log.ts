import type { Logger } from 'pino';
import { CLIENT_HEADER, CLIENT_HEADER_PATTERN } from '@snapdeck/contract';
import { afterResponse, type Step } from '../http/pipeline.ts';

/** Query parameters that are secrets (share tokens, pd_ links) or long opaque blobs: never logged. */
const REDACTED_PARAMS = new Set(['token', 'cursor']);
const REDACTED = '[REDACTED]';

/**
 * The path and query of a request URL with the values of `token` and `cursor` replaced (matched
 * on the decoded, case-insensitive name, so %74oken is caught too). Headers are never logged, so
 * X-API-Key cannot leak through the access log (X-Client alone is, see clientOf).
 */
export function redactedUrl(url: string): string {
  const schemeEnd = url.indexOf('://');
  const pathStart = schemeEnd === -1 ? 0 : url.indexOf('/', schemeEnd + 3);
  const pathAndQuery = pathStart === -1 ? '/' : url.slice(pathStart);
  const q = pathAndQuery.indexOf('?');
  if (q === -1) return pathAndQuery;
  const parts = pathAndQuery.slice(q + 1).split('&');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      // a malformed escape: compare the raw name
    }
    if (REDACTED_PARAMS.has(name.trim().toLowerCase())) parts[i] = `${rawName}=${REDACTED}`;
  }
  return `${pathAndQuery.slice(0, q)}?${parts.join('&')}`;
}

/** The X-Client header (a client's name and version, e.g. `@snapdeck/client/1.1.0`) when it is one. */
export function clientOf(header: string | undefined): string | undefined {
  return header !== undefined && CLIENT_HEADER_PATTERN.test(header) ? header : undefined;
}

export interface RequestObserver {
  observe(route: string, status: number, seconds: number): void;
}

/**
 * One JSON line per request (pino, info level): method, route pattern, status, duration, body
 * bytes, request id, key id (never the key, never a token or cursor) and client. pino's default
 * destination writes asynchronously; `LOG_LEVEL=silent` (or anything above info) turns the lines
 * off, leaving only the timing for `observer` (metrics). `route` is the pattern of the route this
 * step is part of ('/v1/games/:slug/cards'), or 'unmatched' (404, 405, preflights): a bounded set
 * of values, fit for metric labels. The first step of every route.
 */
export function accessLog(log: Logger, route: string, observer?: RequestObserver): Step {
  return (c, next) => {
    const started = performance.now();
    return afterResponse(next(), (response) => {
      const durationMs = performance.now() - started;
      const status = response.status;
      observer?.observe(route, status, durationMs / 1000);
      if (!log.isLevelEnabled('info')) return;
      const method = c.req.method;
      const body = method === 'HEAD' ? null : c.get('responseBody');
      log.info(
        {
          requestId: c.get('requestId'),
          method,
          route,
          url: redactedUrl(c.req.url),
          status,
          durationMs: Math.round(durationMs * 1000) / 1000,
          bytes: body == null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
          keyId: (c.get('apiKey') as { id: string } | undefined)?.id,
          client: clientOf(c.req.header(CLIENT_HEADER)),
        },
        'request',
      );
    });
  };
}
