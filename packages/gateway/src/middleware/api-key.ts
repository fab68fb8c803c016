import type { Context } from 'hono';
import type { GatewayEnv } from '../env.ts';
import { KEYED_VARY, varyHeader } from '../http/cache-policy.ts';
import { sendError } from '../http/response.ts';
import type { Step } from '../http/pipeline.ts';
import { normalizeApiKey, type ApiKey, type KeyStore, type StoreSource } from '@snapdeck/store';
import { SURROGATE_KEY, apiKeyKey } from '../http/surrogate-keys.ts';
import type { QuotaCounter } from '../quota/counter.ts';
import { meterRequest } from './quota.ts';
import { withStoreLease } from './store.ts';

/** The active key of a request, or the 401 to answer: `API key required` / `Invalid API key`. */
export function authenticateRequest(c: Context<GatewayEnv>, keys: KeyStore): ApiKey | Response {
  const presented = c.req.header('x-api-key');
  if (presented === undefined || presented.trim() === '') return sendError(c, 'apiKeyRequired');
  // The same reading as `keys revoke` (normalizeApiKey): a key the CLI names is the key a request sends.
  const key = normalizeApiKey(presented);
  return (key && keys.authenticate(key)) || sendError(c, 'invalidApiKey');
}

const KEYED = varyHeader(KEYED_VARY);

/**
 * For keyed endpoints: 401 for a missing or invalid key, then 429 once the key's quota for the
 * window is used up (decisions.md precedence). Every authenticated request counts. Whatever the
 * request ends with varies by X-API-Key (errors too) and, once the key is known, carries its id
 * as a Surrogate-Key (http/surrogate-keys.ts).
 */
export function requireApiKey(store: StoreSource, counter: QuotaCounter): Step {
  // The key is checked against the store view the whole request then reads (middleware/store.ts).
  return (c, next) => withStoreLease(store, c, () => {
    const headers = c.get('headers');
    headers.Vary = KEYED;
    const key = authenticateRequest(c, c.get('store').keys);
    if (key instanceof Response) return key;
    c.set('apiKey', key);
    headers[SURROGATE_KEY] = apiKeyKey(key.id);
    return meterRequest(c, counter, `key:${key.id}`, key.quota, next);
  });
}
