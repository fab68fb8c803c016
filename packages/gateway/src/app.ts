import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { SnapshotReader } from '@snapdeck/snapshot';
import { LocalStoreSource, type Db, type KeyStore, type StoreSource } from '@snapdeck/store';
import type { GatewayEnv } from './env.ts';
import { GatewayMetrics } from './metrics.ts';
import type { Deprecation } from './middleware/deprecation.ts';
import type { QuotaCounter } from './quota/counter.ts';
import type { StorageHealth } from './storage-health.ts';
import type { ShutdownState } from './shutdown.ts';
import { StaticFirstRouter } from './http/static-first-router.ts';
import { createRouter } from './router.ts';
import { cardRoutes } from './routes/cards.ts';
import { changesRoutes } from './routes/changes.ts';
import { deckRoutes } from './routes/decks.ts';
import { docsRoutes } from './routes/docs.ts';
import { gamesRoutes } from './routes/games.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { searchRoutes } from './routes/search.ts';
import { searchPageRoutes } from './routes/search-page.ts';
import { unmatchedRoute } from './routes/unmatched.ts';
import { CatalogVersions } from './versions.ts';

export { NoSnapshotError } from './versions.ts';

export interface GatewayOptions {
  /**
   * Keys, tokens and decks: a local database (`serve --db`) or the published store a gateway
   * follows (`serve --store`). Without it, `db` (and `keys`, else a KeyStore of `db`) are used.
   */
  store?: StoreSource;
  db?: Db;
  keys?: KeyStore;
  quota: QuotaCounter;
  snapshots: SnapshotReader;
  log: Logger;
  /** Quota per client address for GET /v1/decks/{deckId} (no key). */
  addressQuota?: number;
  /** Quota per client address for the search routes (no key), counted apart from deck views. */
  searchQuota?: number;
  /**
   * How many proxies in front of the gateway are trusted to append to X-Forwarded-For (0 or
   * absent: none; the socket peer is the client). See http/client-address.ts.
   */
  trustProxy?: number;
  /** Routes answering with Deprecation / Sunset / Link headers (middleware/deprecation.ts). */
  deprecations?: Deprecation[];
  /** Storage failures counted and logged once (storage-health.ts); startGateway watches its drivers with it. */
  storageHealth?: StorageHealth;
  /** Set when a shutdown begins: /readyz answers 503 from then on (shutdown.ts). */
  shutdown?: ShutdownState;
}

function missingStore(): never {
  throw new Error('createApp needs a store (or a db)');
}

/**
 * The composition root: the parts, then every route. A request then goes: Hono, matching its
 * route (http/static-first-router.ts) → router.ts (the frame
 * every route has: access log, common headers, deprecations) → its route's steps (routes/*.ts:
 * the key and quota, parameters) → http/response.ts (the bytes). Nothing below imports this file.
 */
export function createApp(options: GatewayOptions): Hono<GatewayEnv> {
  const store = options.store ?? new LocalStoreSource(options.db ?? missingStore(), options.keys);
  const app = new Hono<GatewayEnv>({ router: new StaticFirstRouter() });
  const routes = createRouter(app, {
    store,
    quota: options.quota,
    versions: new CatalogVersions(options.snapshots),
    metrics: new GatewayMetrics(options.snapshots, options.quota, store, options.storageHealth),
    storageHealth: options.storageHealth,
    shutdown: options.shutdown,
    log: options.log,
    addressQuota: options.addressQuota,
    searchQuota: options.searchQuota,
    trustProxy: options.trustProxy,
    deprecations: options.deprecations,
  });
  gamesRoutes(routes);
  cardRoutes(routes);
  changesRoutes(routes);
  deckRoutes(routes);
  searchRoutes(routes);
  openApiRoutes(routes);
  docsRoutes(routes);
  searchPageRoutes(routes);
  healthRoutes(routes);
  metricsRoutes(routes);
  // Last: 404 and 405 are decided against every route registered above.
  routes.unmatched(unmatchedRoute(app.routes));
  return app;
}
