import type { Context } from 'hono';
import { accepts } from 'hono/accepts';
import type { Encoding } from '@snapdeck/snapshot';

/** One parsed entry of the header (hono/accepts does not export the type by name). */
type Accept = Parameters<NonNullable<Parameters<typeof accepts>[1]['match']>>[0][number];

const STORED: Encoding[] = ['br', 'gzip', 'identity'];

/**
 * Which stored encoding to send: br, then gzip, then identity, among the codings the client
 * accepts (q > 0). The order is the server's, not the client's q-values: every encoding is the
 * same content, br is the smallest, and a cache in front (deploy/varnish) normalises
 * Accept-Encoding the same way, so it stores at most three variants. `*` stands for any coding
 * the header does not name (RFC 9110 §12.5.3), so it gives br unless br is refused (q=0), then
 * gzip unless that is refused too; identity is always acceptable here (we never answer 406).
 */
function serverPreference(accepted: Accept[]): Encoding {
  const acceptable = new Set<string>();
  const refused = new Set<string>();
  for (const { type, q } of accepted) {
    const coding = type.toLowerCase() === 'x-gzip' ? 'gzip' : type.toLowerCase();
    (q > 0 ? acceptable : refused).add(coding);
  }
  const any = acceptable.has('*');
  if (acceptable.has('br') || (any && !refused.has('br'))) return 'br';
  if (acceptable.has('gzip') || (any && !refused.has('gzip'))) return 'gzip';
  return 'identity';
}

/** Answers by header value: clients send a handful of distinct values ("gzip, deflate, br", ...). */
const negotiated = new Map<string, Encoding>();

/**
 * The encoding of this request's response. The header is parsed by Hono's accepts helper (its
 * Accept-header parser, our `match`), once per distinct value: on the card-page path this is one
 * Map lookup, as it was with the hand-written parser it replaced (docs/benchmarks.md).
 */
export function negotiateEncoding(c: Context): Encoding {
  const header = c.req.header('accept-encoding');
  if (!header) return 'identity';
  let encoding = negotiated.get(header);
  if (encoding === undefined) {
    encoding = accepts(c, { header: 'Accept-Encoding', supports: STORED, default: 'identity', match: serverPreference }) as Encoding;
    if (negotiated.size >= 1000) negotiated.clear();
    negotiated.set(header, encoding);
  }
  return encoding;
}
