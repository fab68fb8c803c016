import type { Context } from 'hono';
import { ERRORS, ERROR_STATUS, type ErrorCode } from '@snapdeck/contract';
import { contentTag, type Body } from '@snapdeck/snapshot';
import type { GatewayEnv } from '../env.ts';
import { varyHeader, CACHE } from './cache-policy.ts';
import { entityTag, notModified } from './entity-tag.ts';

/**
 * Every response the gateway makes goes through this file, down to `respond`: stored bytes
 * (`sendRepresentation`), bodies rendered per request (`sendRendered`) and the contract's errors
 * (`sendError`). Steps return their answer rather than throw it (a throw captures a stack, and
 * 401/429/400 answers come by the thousand under load); only unexpected failures throw, and the
 * pipeline answers those in one place (router.ts, `answerFailure`).
 */

/** A response carrying the headers middleware gathered for this request, plus `headers`. */
export function respond(c: Context<GatewayEnv>, status: number, body: Uint8Array | string | null, headers: Record<string, string>): Response {
  c.set('responseBody', body);
  // Object.assign, not {...a, ...b}: V8 spreads a second object property by property in the
  // runtime, on every answer (bench:hotpath, every row; docs/benchmarks.md, the card-page hot path).
  return new Response(body as ConstructorParameters<typeof Response>[0], { status, headers: Object.assign({}, c.get('headers'), headers) });
}

const CONTENT_ENCODING: Record<Body['encoding'], string | undefined> = { identity: undefined, br: 'br', gzip: 'gzip' };

/** How a kind of response is sent; made once per kind (sendAs), not per request. */
export interface SendAs {
  contentType: string;
  cacheControl: string;
  /** The Vary header: Accept-Encoding, then the request headers the response depends on. */
  vary: string;
}

export function sendAs(contentType: string, cacheControl: string, varyOn: readonly string[] = []): SendAs {
  return { contentType, cacheControl, vary: varyHeader(varyOn) };
}

/**
 * Sends stored bytes with ETag, Vary and Content-Encoding, or a 304 when the client already has
 * them. Nothing is re-serialised: the bytes go out as they are.
 */
export function sendRepresentation(c: Context<GatewayEnv>, body: Body, as: SendAs): Response {
  const headers: Record<string, string> = {
    ETag: entityTag(body.etag, body.encoding),
    'Cache-Control': as.cacheControl,
    Vary: as.vary,
  };
  if (notModified(c.req.header('if-none-match'), body.etag)) return respond(c, 304, null, headers);
  headers['Content-Type'] = as.contentType;
  const contentEncoding = CONTENT_ENCODING[body.encoding];
  if (contentEncoding) headers['Content-Encoding'] = contentEncoding;
  return respond(c, 200, body.bytes, headers);
}

/**
 * A dynamic JSON or text body with a strong ETag computed from its bytes, so even responses
 * rendered per request answer If-None-Match with 304.
 */
export function sendRendered(
  c: Context<GatewayEnv>,
  body: string,
  options: { contentType?: string; cacheControl: string; vary?: string[] },
): Response {
  const bytes = Buffer.from(body);
  return sendRepresentation(c, { bytes, etag: contentTag(bytes), encoding: 'identity' }, sendAs(options.contentType ?? 'application/json', options.cacheControl, options.vary));
}

/** The contract's error body, `{"error": <documented string>}` plus an optional `detail`. */
export function errorBody(code: ErrorCode, detail?: string): string {
  return JSON.stringify(detail === undefined ? { error: ERRORS[code] } : { error: ERRORS[code], detail });
}

/** One of the contract's errors: its status, its body, never stored by a cache. */
export function sendError(c: Context<GatewayEnv>, code: ErrorCode, detail?: string, headers?: Record<string, string>): Response {
  return respond(c, ERROR_STATUS[code], errorBody(code, detail), Object.assign({ 'Content-Type': 'application/json', 'Cache-Control': CACHE.error }, headers));
}
