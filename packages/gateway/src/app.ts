import { Hono } from 'hono';
import type { SnapshotReader } from '@snapdeck/snapshot';
import { LocalStoreSource, type Db, type KeyStore, type StoreSource } from '@snapdeck/store';
import type { GatewayEnv } from './env.ts';
import { GatewayMetrics } from './metrics.ts';
import { StaticFirstRouter } from './http/static-first-router.ts';
import { createRouter, type GatewayParts } from './router.ts';
import { cardRoutes } from './routes/cards.ts';
import { changesRoutes } from './routes/changes.ts';
import { deckChangesRoutes } from './routes/deck-changes.ts';
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

/** What createApp is given: the routes' parts, with the store and the card versions still to make. */
export interface GatewayOptions extends Omit<GatewayParts, 'store' | 'versions' | 'metrics'> {
  /**
   * Keys, tokens and decks: a local database (`serve --db`) or the published store a gateway
   * follows (`serve --store`). Without it, `db` (and `keys`, else a KeyStore of `db`) are used.
   */
  store?: StoreSource;
  db?: Db;
  keys?: KeyStore;
  snapshots: SnapshotReader;
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
  const { store: given, db, keys, snapshots, ...parts } = options;
  const store = given ?? new LocalStoreSource(db ?? missingStore(), keys);
  const app = new Hono<GatewayEnv>({ router: new StaticFirstRouter() });
  const routes = createRouter(app, {
    ...parts,
    store,
    versions: new CatalogVersions(snapshots),
    metrics: new GatewayMetrics(snapshots, parts.quota, store, parts.storageHealth),
  });
  gamesRoutes(routes);
  cardRoutes(routes);
  changesRoutes(routes);
  deckChangesRoutes(routes);
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
