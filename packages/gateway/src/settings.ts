import type { Deprecation } from './middleware/deprecation.ts';

/**
 * How the routes answer, as `snapdeck serve`'s options set it: declared once, for startGateway's
 * config (server.ts), createApp's options (app.ts) and what the routes are given (router.ts).
 */
export interface RouteSettings {
  /** Quota per client address for GET /v1/decks/{deckId} (no key). */
  addressQuota?: number;
  /** Quota per client address for the search routes (no key), counted apart from deck views. */
  searchQuota?: number;
  /**
   * How many proxies in front of the gateway are trusted to append to X-Forwarded-For (0 or
   * absent: none; the socket peer is the client). See http/client-address.ts.
   */
  trustProxy?: number;
  /** Routes answering with Deprecation / Sunset / Link headers (validated: middleware/deprecation.ts). */
  deprecations?: Deprecation[];
}

/** The route settings of a GatewayConfig, and none of its other members (createApp hands what it is given on to the routes). */
export function routeSettings({ addressQuota, searchQuota, trustProxy, deprecations }: RouteSettings): RouteSettings {
  return { addressQuota, searchQuota, trustProxy, deprecations };
}
