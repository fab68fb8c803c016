import type { Context } from 'hono';
import { andThen, type MaybePromise } from '@snapdeck/snapshot';
import type { GatewayEnv } from '../env.ts';
import { sendError } from '../http/response.ts';
import type { Step } from '../http/pipeline.ts';
import { addQuotaHeaders, quotaHeaders, type QuotaCounter } from '../quota/counter.ts';

/**
 * Counts one request for `subject` and goes on with `next`, adding the quota headers to whatever
 * the request ends with; answers the 429 instead once the window's quota is used up.
 */
export function meterRequest(
  c: Context<GatewayEnv>,
  counter: QuotaCounter,
  subject: string,
  quota: number,
  next: () => MaybePromise<Response>,
): MaybePromise<Response> {
  return andThen(counter.consume(subject, quota), (decision) => {
    if (!decision.allowed) return sendError(c, 'rateLimitExceeded', undefined, quotaHeaders(decision));
    addQuotaHeaders(c.get('headers'), decision);
    return next();
  });
}

/**
 * The per-address buckets of requests without a key, each counted apart: deck views (GET
 * /decks/{deckId}) and the search routes. A deck view's subject is the one it always had, so a
 * gateway upgraded during a window keeps its count in a shared Redis.
 */
const ADDRESS_BUCKETS = { deck: 'addr:', search: 'search-addr:' } as const;

/** Counts unauthenticated requests per client address, in `bucket`. */
export function meterAddress(counter: QuotaCounter, bucket: keyof typeof ADDRESS_BUCKETS, quota: number, addressOf: (c: Context) => string): Step {
  const prefix = ADDRESS_BUCKETS[bucket];
  return (c, next) => meterRequest(c, counter, `${prefix}${addressOf(c)}`, quota, next);
}
