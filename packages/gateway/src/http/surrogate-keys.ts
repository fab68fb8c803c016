import type { Context } from 'hono';
import type { GatewayEnv } from '../env.ts';

/**
 * Surrogate-Key: what a cache in front of the gateway may purge a response by (Fastly's header;
 * deploy/varnish/snapdeck.vcl bans on it). Space-separated tokens, each of `[A-Za-z0-9_:-]` only,
 * so a purge can match them with a plain regular expression:
 *
 *   key_<12 hex>   every response to a request authenticated by that key (the key's id, as
 *                  `keys list` shows it): `keys revoke --purge` drops what the key can no longer see
 *   deck:<uuid>    GET /v1/decks/{id} and /v1/decks/{id}/text of that deck
 *   decks          every deck response (one ban instead of thousands after a large import)
 *   game:<slug>    card pages and cards of that game (an operator's emergency purge)
 *
 * Responses that are never stored carry them too (errors, private ones): harmless, and one rule.
 */
export const SURROGATE_KEY = 'Surrogate-Key';
/** Tokens are made of these characters only (the VCL refuses a purge naming anything else). */
export const SURROGATE_KEY_TOKEN = /^[A-Za-z0-9_:-]{1,200}$/;
export const ALL_DECKS_KEY = 'decks';

export const deckKey = (deckId: string): string => `deck:${deckId}`;
export const gameKey = (slug: string): string => `game:${slug}`;
/** A key's id is its own token (ids are `key_` + hex). */
export const apiKeyKey = (keyId: string): string => keyId;

/** Adds tokens to the Surrogate-Key of whatever response this request ends with. */
export function addSurrogateKeys(c: Context<GatewayEnv>, tokens: string): void {
  const headers = c.get('headers');
  const present = headers[SURROGATE_KEY];
  headers[SURROGATE_KEY] = present ? `${present} ${tokens}` : tokens;
}
