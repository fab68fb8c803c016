import decodeUriComponent from 'decode-uri-component';
import type { Logger } from 'pino';
import { CLIENT_HEADER, CLIENT_HEADER_PATTERN } from '@snapdeck/contract';
import { VERSION_PATTERN } from '@snapdeck/snapshot';
import { looksLikeSecret, maskSecrets, shortenSecrets } from '@snapdeck/store';
import { afterResponse, type Step } from '../http/pipeline.ts';
import { lineSink, type LineSink } from '../log.ts';

/**
 * Query parameters whose values are logged: the API's own, none of them a secret or an opaque
 * blob. Every other value (token, cursor, startAfter, anything a client made up or misspelt, such
 * as `tok%65n%3D…` or `;token=`) is replaced: an allow-list, because a deny-list of secret names
 * missed every spelling the gateway does not read as its own parameter.
 */
const LOGGED_VALUES = new Set(['hitsPerPage', 'limit', 'sort', 'gameId', 'updatedSince', 'format', 'since']);
/** A parameter name shown as it is; any other name (long, encoded, odd) is shown as `?`. */
const PLAIN_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
const REDACTED = '[REDACTED]';

function decodedName(rawName: string): string | null {
  // Nothing to decode in most names; decodeURIComponent would hand the same string back.
  if (!rawName.includes('%') && !rawName.includes('+')) return rawName;
  try {
    return decodeURIComponent(rawName.replace(/\+/g, ' '));
  } catch {
    return null; // a malformed escape
  }
}

/**
 * `since` is a card snapshot version on GET /v1/games/{slug}/changes (logged) but an opaque cursor
 * on GET /v1/decks/changes (replaced, as every cursor is): only a version's shape is shown.
 */
const loggable = (name: string, value: string): boolean => name !== 'since' || VERSION_PATTERN.test(value);

function redactedPart(part: string): string {
  const eq = part.indexOf('=');
  const name = decodedName(eq === -1 ? part : part.slice(0, eq));
  const shownName = name !== null && PLAIN_NAME.test(name) ? name : '?';
  if (eq === -1) return shownName;
  return `${shownName}=${name !== null && LOGGED_VALUES.has(name) && loggable(name, part.slice(eq + 1)) ? part.slice(eq + 1) : REDACTED}`;
}

/**
 * The path and query of a request URL as the access log shows it: the values of parameters other
 * than LOGGED_VALUES replaced, odd names replaced, and anything shaped like a key, token or `pd_`
 * link masked wherever it stands (a path segment included). Headers are never logged, so
 * X-API-Key cannot leak through the access log (X-Client alone is, shortened: see clientOf).
 *
 * One pass of indexOf over the URL rather than slice, split, map and join: it runs for every line
 * (bench:hotpath, "card page hitsPerPage=100"; docs/benchmarks.md), and access-log.test.ts holds it
 * to the plain version's output.
 */
export function redactedUrl(url: string): string {
  const schemeEnd = url.indexOf('://');
  const pathStart = schemeEnd === -1 ? 0 : url.indexOf('/', schemeEnd + 3);
  if (pathStart === -1) return '/';
  const q = url.indexOf('?', pathStart);
  let text = q === -1 ? url.slice(pathStart) : url.slice(pathStart, q);
  // The path with its valid escapes decoded (decode-uri-component leaves a malformed one as it is).
  if (text.includes('%')) text = decodeUriComponent(text);
  if (q !== -1) {
    // Each parameter as split('&') gives them, empty ones included.
    let separator = '?';
    for (let from = q + 1; ; separator = '&') {
      const amp = url.indexOf('&', from);
      text += separator + redactedPart(url.slice(from, amp === -1 ? url.length : amp));
      if (amp === -1) break;
      from = amp + 1;
    }
  }
  return withoutSecrets(text);
}

/** Escapes decoded this many times at most: a secret encoded twice is still read by whoever decodes twice. */
const DECODINGS = 3;

/**
 * `text` with every secret in it masked, by what it means rather than how it is spelled: when its
 * escapes, decoded (malformed ones left as they are) up to DECODINGS times, spell a secret
 * (`sd%5Flive%5F…`, `%70d_…`, `st_%33…`, an allowed parameter's value), the decoded text is shown
 * masked; otherwise the text as it is (a URL without `%` costs what it did).
 */
function withoutSecrets(text: string): string {
  if (!text.includes('%')) return maskSecrets(text);
  let meaning = text;
  for (let round = 0; round < DECODINGS && meaning.includes('%'); round += 1) meaning = decodeUriComponent(meaning);
  return looksLikeSecret(meaning) ? maskSecrets(meaning) : text;
}

/**
 * The X-Client header (a client's name and version, e.g. `@snapdeck/client/1.1.0`) when it is one,
 * with anything that looks like a key, token or `pd_` link in it cut to 12 characters (a key
 * pasted into the wrong header is still the key).
 */
export function clientOf(header: string | undefined): string | undefined {
  return header !== undefined && CLIENT_HEADER_PATTERN.test(header) ? shortenSecrets(header) : undefined;
}

/** How pino shows the url and client members of an access-log line (accessLine does the same). */
export const ACCESS_SERIALIZERS = { url: redactedUrl, client: clientOf };

/** The fields of an access-log line, as the step gathers them (url and client not yet masked or checked). */
interface AccessFields {
  requestId: string | undefined;
  method: string;
  route: string;
  url: string;
  status: number;
  durationMs: number;
  bytes: number;
  keyId: string | undefined;
  client: string | undefined;
}

/** `,"name":value` as pino writes a string member: JSON.stringify's text (equal to pino's for strings without lone surrogates, which none of these can hold), nothing for undefined. */
const member = (name: string, value: string | undefined): string => (value === undefined ? '' : `,"${name}":${JSON.stringify(value)}`);

/**
 * The line `lines.info(fields, 'request')` writes (the serializers above applied), byte for byte
 * (access-log.test.ts compares the two), written out by hand because pino's generic formatting
 * (every member looked up in its serializers and stringifiers, then escaped by a character loop)
 * was about a tenth of a card's CPU time in the gateway's profile (bench:hotpath, "one card by
 * id"; docs/benchmarks.md, the hot path).
 */
export function accessLine(f: AccessFields, time: number, bindings: string): string {
  return (
    `{"level":30,"time":${time}${bindings}${member('requestId', f.requestId)}${member('method', f.method)}${member('route', f.route)}` +
    `${member('url', redactedUrl(f.url))},"status":${f.status},"durationMs":${f.durationMs},"bytes":${f.bytes}` +
    `${member('keyId', f.keyId)}${member('client', clientOf(f.client))},"msg":"request"}\n`
  );
}

/**
 * Where the access log's lines go: the gateway's own log (log.ts createLog) takes their fields and
 * formats them later, together, with accessLine; any other logger (a test's, an embedder's) is
 * given them as `info(fields, 'request')`, masked by ACCESS_SERIALIZERS.
 */
function accessSink(log: Logger): LineSink<AccessFields> {
  const own = lineSink(log, accessLine);
  if (own !== undefined) return own;
  const lines = log.child({}, { serializers: ACCESS_SERIALIZERS });
  return (fields) => lines.info(fields, 'request');
}

/** Where the access log reports each answer's status and duration (metrics.ts), per route. */
export interface RequestObserver {
  /** The observer of one route's answers, made once when the route is registered. */
  route(route: string): RouteObserver;
}

export interface RouteObserver {
  observe(status: number, seconds: number): void;
}

/**
 * One JSON line per request (info level): method, route pattern, status, duration, body bytes,
 * request id, key id (never the key, never a token or cursor) and client, written after the answer
 * (accessSink: the URL's masking and the client's check run when the line is formatted);
 * `LOG_LEVEL=silent` (or anything above info) turns the lines off, leaving only the timing for
 * `observer` (metrics). `route` is the pattern of the route this step is part of
 * ('/v1/games/:slug/cards'), or 'unmatched' (404, 405, preflights): a bounded set of values, fit
 * for metric labels. The first step of every route.
 */
export function accessLog(log: Logger, route: string, observer?: RequestObserver): Step {
  const observed = observer?.route(route);
  const write = accessSink(log);
  return (c, next) => {
    const started = performance.now();
    return afterResponse(next(), (response) => {
      const durationMs = performance.now() - started;
      const status = response.status;
      observed?.observe(status, durationMs / 1000);
      if (!log.isLevelEnabled('info')) return;
      const method = c.req.method;
      const body = method === 'HEAD' ? null : c.get('responseBody');
      write({
        requestId: c.get('requestId'),
        method,
        route,
        url: c.req.url,
        status,
        durationMs: Math.round(durationMs * 1000) / 1000,
        bytes: body == null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
        keyId: (c.get('apiKey') as { id: string } | undefined)?.id,
        client: c.req.header(CLIENT_HEADER),
      });
    });
  };
}
