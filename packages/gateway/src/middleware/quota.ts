import { createMiddleware } from 'hono/factory';
import type { Context } from 'hono';
import type { GatewayEnv } from '../env.ts';
import { sendError } from '../http/errors.ts';
import { quotaHeaders, type QuotaCounter } from '../quota/counter.ts';

async function meter(c: Context<GatewayEnv>, next: () => Promise<void>, counter: QuotaCounter, subject: string, quota: number) {
  const decision = await counter.consume(subject, quota);
  const headers = quotaHeaders(decision);
  if (!decision.allowed) return sendError(c, 'rateLimitExceeded', undefined, headers);
  // Set before the handler runs: c.body() folds these in without rebuilding the response.
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  await next();
}

/** Counts every authenticated request against its key's quota (run after requireApiKey). */
export function meterKey(counter: QuotaCounter) {
  return createMiddleware<GatewayEnv>(async (c, next) => {
    const key = c.var.apiKey;
    return meter(c, next, counter, `key:${key.id}`, key.quota);
  });
}

/** Counts unauthenticated requests per client address (GET /decks/{deckId}). */
export function meterAddress(counter: QuotaCounter, quota: number, addressOf: (c: Context) => string) {
  return createMiddleware<GatewayEnv>(async (c, next) => meter(c, next, counter, `addr:${addressOf(c)}`, quota));
}
