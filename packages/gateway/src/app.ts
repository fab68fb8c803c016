import { Hono, type Context } from 'hono';
import type { Logger } from 'pino';
import { VersionGoneError, andThen, type MaybePromise, type SnapshotReader, type SnapshotVersion } from '@snapdeck/snapshot';
import { LocalStoreSource, type Db, type KeyStore, type StoreSource } from '@snapdeck/store';
import type { GatewayEnv } from './env.ts';
import { sendError } from './http/errors.ts';
import { useStore } from './middleware/store.ts';
import { pipeline, type Step } from './http/pipeline.ts';
import { patternToRegExp } from './http/route-pattern.ts';
import { requireApiKey } from './middleware/api-key.ts';
import { commonHeaders } from './middleware/common-headers.ts';
import { accessLog } from './middleware/access-log.ts';
import { deprecationHeaders, type Deprecation } from './middleware/deprecation.ts';
import type { QuotaCounter } from './quota/counter.ts';
import { cardRoutes } from './routes/cards.ts';
import { deckRoutes } from './routes/decks.ts';
import { gamesRoutes } from './routes/games.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { docsRoutes } from './routes/docs.ts';
import { healthRoutes } from './routes/health.ts';
import { GatewayMetrics, metricsRoutes } from './routes/metrics.ts';

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
  /**
   * How many proxies in front of the gateway are trusted to append to X-Forwarded-For (0 or
   * absent: none; the socket peer is the client). See http/client-address.ts.
   */
  trustProxy?: number;
  /** Routes answering with Deprecation / Sunset / Link headers (middleware/deprecation.ts). */
  deprecations?: Deprecation[];
}

/** Everything a route module needs to register its routes. */
export interface GatewayRoutes extends GatewayOptions {
  store: StoreSource;
  /** Pins the request to one view of the store (taken once, released after the answer). */
  storeStep: Step;
  /**
   * Registers a route: its steps run after the ones every route has (access log, common headers,
   * deprecations), as one Hono handler (http/pipeline.ts says why not app.use).
   */
  get(path: string, ...steps: Step[]): void;
  post(path: string, ...steps: Step[]): void;
  /** The 401 → 429 part of the precedence order, for routes that need a key. */
  keyed: Step;
  /** The current version of a public game; throws (→ 500) when none is published. */
  currentVersion(game: string): MaybePromise<SnapshotVersion>;
  /**
   * Runs `read` on the current version, once more on the newly current one when the version it
   * had was deleted meanwhile (replaced and collected before this process saw the new pointer).
   */
  withCurrentVersion<T>(game: string, read: (version: SnapshotVersion) => MaybePromise<T>): MaybePromise<T>;
}

function missingStore(): never {
  throw new Error('createApp needs a store (or a db)');
}

export class NoSnapshotError extends Error {
  constructor(game: string) {
    super(`no snapshot has been published for ${game}; run \`snapdeck build\``);
    this.name = 'NoSnapshotError';
  }
}

export function createApp(gatewayOptions: GatewayOptions): Hono<GatewayEnv> {
  const store = gatewayOptions.store ?? new LocalStoreSource(gatewayOptions.db ?? missingStore(), gatewayOptions.keys);
  const options = { ...gatewayOptions, store };
  const app = new Hono<GatewayEnv>();
  const metrics = new GatewayMetrics(options.snapshots, options.quota, store);
  const deprecations = deprecationHeaders(options.deprecations);
  /** The steps every request goes through, before its route's own. */
  const frame = (route: string): Step[] => [accessLog(options.log, route, metrics), commonHeaders, ...(deprecations ? [deprecations] : [])];

  const failed = (error: unknown, c: Context<GatewayEnv>): Response => {
    options.log.error({ err: error, requestId: c.get('requestId'), method: c.req.method, path: c.req.path }, 'request failed');
    return sendError(c, 'internal');
  };
  const currentVersion = (game: string): MaybePromise<SnapshotVersion> =>
    andThen(options.snapshots.current(game), (version) => {
      if (!version) throw new NoSnapshotError(game);
      return version;
    });

  const routes: GatewayRoutes = {
    ...options,
    get: (path, ...steps) => void app.get(path, pipeline([...frame(path), ...steps], failed)),
    post: (path, ...steps) => void app.post(path, pipeline([...frame(path), ...steps], failed)),
    storeStep: useStore(store),
    keyed: requireApiKey(store, options.quota),
    currentVersion,
    withCurrentVersion(game, read) {
      const retry = (error: unknown) => {
        if (!(error instanceof VersionGoneError)) throw error;
        return andThen(currentVersion(game), read);
      };
      let result;
      try {
        result = andThen(currentVersion(game), read);
      } catch (error) {
        return retry(error);
      }
      return result instanceof Promise ? result.catch(retry) : result;
    },
  };
  gamesRoutes(routes);
  cardRoutes(routes);
  deckRoutes(routes);
  openApiRoutes(routes);
  docsRoutes(routes);
  healthRoutes(routes);
  metricsRoutes(routes, metrics);

  const known = app.routes.map((route) => ({ method: route.method, matcher: patternToRegExp(route.path), concrete: !route.path.includes(':') }));
  const unmatched = pipeline(
    [
      ...frame('unmatched'),
      (c) => {
        const path = c.req.path;
        const matching = known.filter((route) => route.matcher.test(path));
        // A concrete route shadows a parameterised one: /v1/decks/details is not a deck id.
        const concrete = matching.filter((route) => route.concrete);
        const allowed = [...new Set((concrete.length > 0 ? concrete : matching).map((route) => route.method))];
        if (allowed.length > 0) {
          if (allowed.includes('GET')) allowed.push('HEAD');
          return sendError(c, 'methodNotAllowed', undefined, { Allow: [...allowed, 'OPTIONS'].join(', ') });
        }
        return sendError(c, 'notFound');
      },
    ],
    failed,
  );
  app.notFound((c) => unmatched(c as Context<GatewayEnv>, async () => {}));
  // Errors outside any route's steps (Hono itself); the steps answer their own.
  app.onError(failed);
  return app;
}
