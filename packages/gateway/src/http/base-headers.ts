import { randomUUID } from 'node:crypto';
import { looksLikeSecret } from '@snapdeck/store';

/**
 * What every answer carries, whoever writes it: the app's steps (middleware/common-headers.ts) or
 * the HTTP server's own answers before any route (listener.ts, client-error.ts).
 */

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
/**
 * The caller's X-Request-Id when it is sane, a new one otherwise. An id that looks like a key,
 * share token or `pd_` link is not sane: it would be logged and echoed in the response, and a
 * secret is no use for telling requests apart anyway.
 */
export function requestIdOf(given: string | readonly string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) && !looksLikeSecret(given) ? given : randomUUID();
}

/** What every response carries, whatever answers it (decisions.md "Errors and precedence"). */
export const SECURITY_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Access-Control-Allow-Origin': '*' } as const;
