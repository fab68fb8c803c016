import type { Context } from 'hono';
import type { Body, Encoding } from '@snapdeck/snapshot';
import type { GatewayEnv } from '../env.ts';
import { varyHeader } from './cache-policy.ts';
import { respond } from './respond.ts';

const SUFFIX: Record<Encoding, string> = { identity: '', br: '-br', gzip: '-gz' };
const CONTENT_ENCODING: Record<Encoding, string | undefined> = { identity: undefined, br: 'br', gzip: 'gzip' };

/**
 * The best encoding the client accepts among those we store: br, then gzip, then identity.
 * A coding with q=0 is refused; identity is always acceptable here (we never answer 406).
 */
const negotiated = new Map<string, Encoding>();

export function negotiateEncoding(acceptEncoding: string | undefined): Encoding {
  if (!acceptEncoding) return 'identity';
  // Clients send a handful of distinct values ("gzip, deflate, br", ...): remember the answers.
  let encoding = negotiated.get(acceptEncoding);
  if (encoding === undefined) {
    encoding = parseAcceptEncoding(acceptEncoding);
    if (negotiated.size >= 1000) negotiated.clear();
    negotiated.set(acceptEncoding, encoding);
  }
  return encoding;
}

function parseAcceptEncoding(acceptEncoding: string): Encoding {
  let br = false;
  let gzip = false;
  let star = false;
  for (const part of acceptEncoding.split(',')) {
    const [rawName, ...params] = part.split(';');
    const name = rawName!.trim().toLowerCase();
    const refused = params.some((p) => /^\s*q\s*=\s*0(\.0{0,3})?\s*$/i.test(p));
    if (refused) continue;
    if (name === 'br') br = true;
    else if (name === 'gzip' || name === 'x-gzip') gzip = true;
    else if (name === '*') star = true;
  }
  if (br) return 'br';
  if (gzip) return 'gzip';
  if (star) return 'br';
  return 'identity';
}

/** Strong entity tag of one representation: the content tag plus the encoding. */
export function entityTag(tag: string, encoding: Encoding): string {
  return `"${tag}${SUFFIX[encoding]}"`;
}

/** True when If-None-Match names this content in any of its encodings (or is "*"). */
export function notModified(ifNoneMatch: string | undefined, tag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  for (const candidate of ifNoneMatch.split(',')) {
    const value = candidate.trim().replace(/^W\//, '');
    if (value === `"${tag}"` || value === `"${tag}-br"` || value === `"${tag}-gz"`) return true;
  }
  return false;
}

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
