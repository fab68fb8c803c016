import { createMiddleware } from 'hono/factory';
import type { GatewayEnv } from '../env.ts';
import { sendError } from '../http/errors.ts';
import type { KeyStore } from '../keys/store.ts';

/** 401 `API key required` without X-API-Key, 401 `Invalid API key` for anything not active. */
export function requireApiKey(keys: KeyStore) {
  return createMiddleware<GatewayEnv>(async (c, next) => {
    const presented = c.req.header('x-api-key');
    if (presented === undefined || presented.trim() === '') return sendError(c, 'apiKeyRequired');
    const key = keys.authenticate(presented.trim());
    if (!key) return sendError(c, 'invalidApiKey');
    c.set('apiKey', key);
    await next();
  });
}
