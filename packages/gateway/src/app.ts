import { Hono, type MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import { VersionGoneError, type SnapshotStore, type SnapshotVersion } from '@snapdeck/snapshot';
import type { Db } from './db/database.ts';
import type { GatewayEnv } from './env.ts';
import { sendError } from './http/errors.ts';
import type { KeyStore } from './keys/store.ts';
import { requireApiKey } from './middleware/api-key.ts';
import { commonHeaders } from './middleware/common-headers.ts';
import { accessLog } from './middleware/access-log.ts';
import { registerDeprecations, type Deprecation } from './middleware/deprecation.ts';
import type { QuotaCounter } from './quota/counter.ts';
import { cardRoutes } from './routes/cards.ts';
import { deckRoutes } from './routes/decks.ts';
import { gamesRoutes } from './routes/games.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { healthRoutes } from './routes/health.ts';
import { GatewayMetrics, metricsRoutes } from './routes/metrics.ts';

export interface GatewayOptions {
  db: Db;
  keys: KeyStore;
  quota: QuotaCounter;
  snapshots: SnapshotStore;
  log: Logger;
  /** Quota per client address for GET /v1/decks/{deckId} (no key). */
  addressQuota?: number;
  /** Take the client address from X-Forwarded-For (only behind a proxy you trust). */
  trustProxy?: boolean;
  /** Routes answering with Deprecation / Sunset / Link headers (middleware/deprecation.ts). */
  deprecations?: Deprecation[];
}

/** Everything a route module needs to register its routes. */
export interface GatewayRoutes extends GatewayOptions {
  app: Hono<GatewayEnv>;
  /** The 401 → 429 part of the precedence order, for routes that need a key. */
  keyed: MiddlewareHandler<GatewayEnv>;
  /** The current version of a public game; throws (→ 500) when none is published. */
  currentVersion(game: string): Promise<SnapshotVersion>;
  /**
   * Runs `read` on the current version, once more on the newly current one when the version it
   * had was deleted meanwhile (replaced and collected before this process saw the new pointer).
   */
  withCurrentVersion<T>(game: string, read: (version: SnapshotVersion) => Promise<T>): Promise<T>;
}

export class NoSnapshotError extends Error {
  constructor(game: string) {
    super(`no snapshot has been published for ${game}; run \`snapdeck build\``);
    this.name = 'NoSnapshotError';
  }
}

/** Converts a Hono path pattern ('/v1/games/:slug/cards') into a matcher for the 405 check. */
function patternToRegExp(path: string): RegExp {
  const source = path
    .split('/')
    .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${source}$`);
}

export function createApp(options: GatewayOptions): Hono<GatewayEnv> {
  const app = new Hono<GatewayEnv>();
  const metrics = new GatewayMetrics(options.snapshots, options.quota);
  app.use('*', accessLog(options.log, metrics));
  app.use('*', commonHeaders());
  registerDeprecations(app, options.deprecations);

  const routes: GatewayRoutes = {
    ...options,
    app,
    keyed: requireApiKey(options.keys, options.quota),
    async currentVersion(game) {
      const version = await options.snapshots.current(game);
      if (!version) throw new NoSnapshotError(game);
      return version;
    },
    async withCurrentVersion(game, read) {
      try {
        return await read(await routes.currentVersion(game));
      } catch (error) {
        if (!(error instanceof VersionGoneError)) throw error;
        return read(await routes.currentVersion(game));
      }
    },
  };
  gamesRoutes(routes);
  cardRoutes(routes);
  deckRoutes(routes);
  openApiRoutes(routes);
  healthRoutes(routes);
  metricsRoutes(routes, metrics);

  const known = app.routes
    .filter((route) => route.method !== 'ALL')
    .map((route) => ({ method: route.method, matcher: patternToRegExp(route.path) }));

  app.notFound((c) => {
    const path = c.req.path;
    const allowed = [...new Set(known.filter((route) => route.matcher.test(path)).map((route) => route.method))];
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      return sendError(c, 'methodNotAllowed', undefined, { Allow: [...allowed, 'OPTIONS'].join(', ') });
    }
    return sendError(c, 'notFound');
  });

  app.onError((error, c) => {
    options.log.error({ err: error, requestId: c.get('requestId'), method: c.req.method, path: c.req.path }, 'request failed');
    return sendError(c, 'internal');
  });

  return app;
}
