import { createMiddleware } from 'hono/factory';
import type { GatewayEnv } from '../env.ts';
import { sendError } from '../http/errors.ts';
import type { Scope } from '../keys/store.ts';

/** 403 `Insufficient scope` when the key lacks the scope (run after requireApiKey). */
export function requireScope(scope: Scope) {
  return createMiddleware<GatewayEnv>(async (c, next) => {
    if (!c.get('apiKey').scopes.includes(scope)) return sendError(c, 'insufficientScope');
    await next();
  });
}
