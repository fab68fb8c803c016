import type { Context } from 'hono';
import type { Encoding } from '@snapdeck/snapshot';

/**
 * The best encoding the client accepts among those we store: br, then gzip, then identity.
 * A coding with q=0 is refused; identity is always acceptable here (we never answer 406).
 */
const negotiated = new Map<string, Encoding>();

export function negotiateEncoding(c: Context): Encoding {
  const acceptEncoding = c.req.header('accept-encoding');
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
