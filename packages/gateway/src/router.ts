import type { Context, Hono } from 'hono';
import type { Logger } from 'pino';
import type { StoreSource } from '@snapdeck/store';
import type { GatewayEnv } from './env.ts';
import { pipeline, type ErrorResponder, type Step } from './http/pipeline.ts';
import { requireNormalPath } from './http/request-path.ts';
import { sendError } from './http/response.ts';
import { accessLog, redactedUrl } from './middleware/access-log.ts';
import { requireApiKey } from './middleware/api-key.ts';
import { commonHeaders, corsPreflight } from './middleware/common-headers.ts';
import { deprecationHeaders } from './middleware/deprecation.ts';
import { useStore } from './middleware/store.ts';
import type { GatewayMetrics } from './metrics.ts';
import type { QuotaCounter } from './quota/counter.ts';
import type { RouteSettings } from './settings.ts';
import type { ShutdownState } from './shutdown.ts';
import type { StorageHealth } from './storage-health.ts';
import type { CatalogVersions } from './versions.ts';

/** The parts of the gateway that route handlers read from. */
export interface GatewayParts extends RouteSettings {
  /** Keys, tokens and decks (a local database or a followed published store). */
  store: StoreSource;
  quota: QuotaCounter;
  /** The snapshot versions cards are read from (versions.ts). */
  versions: CatalogVersions;
  metrics: GatewayMetrics;
  log: Logger;
  /** Storage failures counted and logged once (storage-health.ts); request failures it causes are logged a few a minute. */
  storageHealth?: StorageHealth;
  /** Set when a shutdown begins: /readyz answers 503 from then on (shutdown.ts). */
  shutdown?: ShutdownState;
}

/** What a route module (routes/*.ts) registers its routes with. */
export interface GatewayRoutes extends GatewayParts {
  /**
   * Registers a route: its steps run after the ones every request has (access log, common
   * headers, deprecations), as one Hono handler (http/pipeline.ts says why not app.use).
   */
  get(path: string, ...steps: Step[]): void;
  post(path: string, ...steps: Step[]): void;
  /** The 401 → 429 part of the precedence order, for routes that need a key. */
  keyed: Step;
  /** Pins the request to one view of the store (taken once, released after the answer). */
  storeStep: Step;
  /** Answers what no route matched (404, 405, preflights); registered last, once. */
  unmatched(...steps: Step[]): void;
}

/**
 * The one answer to a failure nobody expected (a step threw, or Hono itself did): logged with
 * the request id, answered 500 with the contract's body.
 */
export function answerFailure(log: Logger, storageHealth?: StorageHealth): ErrorResponder {
  return (error: unknown, c: Context<GatewayEnv>): Response => {
    const fields = { err: error, requestId: c.get('requestId'), method: c.req.method, path: redactedUrl(c.req.path) };
    // Storage down fails many requests alike: a few lines a minute say it (and the outage warning).
    if (storageHealth?.isStorageFailure(error)) storageHealth.logRequestFailure('error', fields, 'request failed: storage unreachable');
    else log.error(fields, 'request failed');
    return sendError(c, 'internal');
  };
}

export function createRouter(app: Hono<GatewayEnv>, parts: GatewayParts): GatewayRoutes {
  const failed = answerFailure(parts.log, parts.storageHealth);
  const deprecations = deprecationHeaders(parts.deprecations);
  /**
   * The steps every request goes through, before its route's own. The path check comes first
   * of all checks (decisions.md: before 401, 404, 405, 429, preflights), once the common headers
   * its 400 carries are set.
   */
  const frame = (route: string): Step[] => [accessLog(parts.log, route, parts.metrics), commonHeaders, requireNormalPath, corsPreflight, ...(deprecations ? [deprecations] : [])];
  // Errors outside any route's steps (Hono itself); the steps answer their own.
  app.onError(failed);
  return {
    ...parts,
    get: (path, ...steps) => void app.get(path, pipeline([...frame(path), ...steps], failed)),
    post: (path, ...steps) => void app.post(path, pipeline([...frame(path), ...steps], failed)),
    keyed: requireApiKey(parts.store, parts.quota),
    storeStep: useStore(parts.store),
    unmatched: (...steps) => {
      const handler = pipeline([...frame('unmatched'), ...steps], failed);
      app.notFound((c) => handler(c as Context<GatewayEnv>, async () => {}));
    },
  };
}
