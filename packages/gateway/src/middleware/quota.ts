import { createMiddleware } from 'hono/factory';
import type { Context } from 'hono';
import type { GatewayEnv } from '../env.ts';
import { sendError } from '../http/errors.ts';
import { quotaHeaders, type QuotaCounter } from '../quota/counter.ts';

/**
 * Counts one request for `subject`. Adds the quota headers to whatever the request ends with, and
 * returns the 429 to answer when the window's quota is used up (null otherwise).
 */
export async function meterRequest(c: Context<GatewayEnv>, counter: QuotaCounter, subject: string, quota: number): Promise<Response | null> {
  const decision = await counter.consume(subject, quota);
  const headers = quotaHeaders(decision);
  if (!decision.allowed) return sendError(c, 'rateLimitExceeded', undefined, headers);
  Object.assign(c.get('headers'), headers);
  return null;
}

/** Counts unauthenticated requests per client address (GET /decks/{deckId}). */
export function meterAddress(counter: QuotaCounter, quota: number, addressOf: (c: Context) => string) {
  return createMiddleware<GatewayEnv>(async (c, next) => {
    const limited = await meterRequest(c, counter, `addr:${addressOf(c)}`, quota);
    if (limited) return limited;
    await next();
  });
}
