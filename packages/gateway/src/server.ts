import { Server as NetServer, type AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { SnapshotReader, openStorage } from '@snapdeck/snapshot';
import { createApp } from './app.ts';
import { StorageHealth } from './storage-health.ts';
import { LocalStoreSource, StoreFollower, openDatabase, type Db, type StoreSource } from '@snapdeck/store';
import { MemoryQuotaCounter, type QuotaCounter } from './quota/counter.ts';
import { RedisQuotaCounter } from './quota/redis.ts';
import { defaultMaxConnections } from './http/connection-limit.ts';
import { createHttpServer } from './http/listener.ts';
import { createLog, flushLog } from './log.ts';
import { parseDeprecations } from './middleware/deprecation.ts';
import { routeSettings, type RouteSettings } from './settings.ts';
import { ShutdownState, shutDown, type ShutdownOptions, type ShutdownOutcome } from './shutdown.ts';

/** What startGateway is given (`snapdeck serve`'s options, parsed). */
export interface GatewayConfig extends RouteSettings {
  port: number;
  host: string;
  /** A folder or s3://bucket/prefix. */
  snapshots: string;
  /** The SQLite database (single-host mode; default OPERATOR_DEFAULTS.db). At most one of `db` and `store`. */
  db?: string;
  /** A published store to follow instead of a database (a folder or s3://bucket/prefix). */
  store?: string;
  /** Where `store` versions are downloaded (default: a temporary folder of this process). */
  cacheDir?: string;
  /** How often the store's pointer is read (default: the follower's, OPERATOR_DEFAULTS.storePollMs). */
  storePollMs?: number;
  /** Each storage read of the follower's polls and downloads gives up after this (default OPERATOR_DEFAULTS.storePollTimeoutMs). */
  storePollTimeoutMs?: number;
  /** Fail closed once the store has not been confirmed current for this long (default: never). */
  maxStoreAgeMs?: number;
  /** Memory for page and card bodies (default OPERATOR_DEFAULTS.cacheMiB MiB, the snapshot reader's). */
  cacheBytes?: number;
  pointerTtlMs?: number;
  /** Default: createLog's (log.ts). */
  log?: Logger;
  /**
   * redis://host:port: quotas shared by every gateway process using it. Without it, each process
   * counts on its own. While Redis is unreachable, counting falls back to this process (quota/redis.ts).
   */
  redis?: string;
  /** Open connections beyond this are closed as soon as accepted (default: http/connection-limit.ts, from the open-file limit). */
  maxConnections?: number;
  /** Snapshot reads not answered within this long fail the request (default OPERATOR_DEFAULTS.storageTimeoutMs). */
  storageTimeoutMs?: number;
}

export interface RunningGateway {
  url: string;
  server: Server;
  /** The database in single-host mode; null with `store`. */
  db: Db | null;
  /** Where keys, tokens and decks come from. */
  store: StoreSource;
  snapshots: SnapshotReader;
  /** Stops accepting connections, lets in-flight requests finish, then closes everything. */
  close(): Promise<void>;
  /** SIGTERM's way out (shutdown.ts): not ready at once, the drain, then close(), within the timeout. */
  shutdown(options?: ShutdownOptions): Promise<ShutdownOutcome>;
}

export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const log = config.log ?? createLog();
  // Checked before anything is opened: a wrong list fails the start-up with its problems named.
  const deprecations = config.deprecations ? parseDeprecations(config.deprecations) : undefined;
  if (config.db && config.store) throw new Error('give either a database (db) or a published store (store), not both');
  // Every storage call is watched: failures counted, an outage logged once (storage-health.ts).
  const storageHealth = new StorageHealth(log);
  let db: Db | null = null;
  let store: StoreSource;
  let storeStorage: ReturnType<typeof openStorage> | null = null;
  if (config.store) {
    const raw = openStorage(config.store);
    storeStorage = storageHealth.watch(raw, 'store'); // part downloads and presence: not cut short
    // Polls bounded inside the watcher, so one given up on is counted and logged there, once.
    const polls = storageHealth.watch(raw, 'store', config.storePollTimeoutMs ?? OPERATOR_DEFAULTS.storePollTimeoutMs);
    const follower = new StoreFollower(storeStorage, { cacheDir: config.cacheDir, pollMs: config.storePollMs, polls, maxAgeMs: config.maxStoreAgeMs, log, reportedOutage: (error) => storageHealth.isStorageFailure(error) });
    // Resolves once the first attempt is done, loaded or not: a gateway that cannot reach its
    // store starts anyway, not ready, and keeps trying (decisions.md "The published store").
    await follower.start();
    store = follower;
  } else {
    db = openDatabase(config.db ?? OPERATOR_DEFAULTS.db);
    store = new LocalStoreSource(db);
  }
  const storage = storageHealth.watch(openStorage(config.snapshots), 'snapshots', config.storageTimeoutMs ?? OPERATOR_DEFAULTS.storageTimeoutMs);
  const snapshots = new SnapshotReader(storage, {
    cacheBytes: config.cacheBytes,
    pointerTtlMs: config.pointerTtlMs,
    onError: (err, context) => (storageHealth.isStorageFailure(err) ? storageHealth.logRequestFailure('warn', { err }, context) : log.warn({ err }, context)),
  });
  let quota: QuotaCounter;
  if (config.redis) {
    const redis = new RedisQuotaCounter(config.redis, { log });
    await redis.ready();
    quota = redis;
  } else {
    quota = new MemoryQuotaCounter();
  }
  const shutdownState = new ShutdownState();
  const app = createApp({ ...routeSettings(config), deprecations, store, quota, snapshots, log, storageHealth, shutdown: shutdownState });
  for (const d of deprecations ?? []) {
    if (!app.routes.some((route) => route.path === d.path && route.method !== 'ALL')) log.warn({ path: d.path }, 'deprecation configured for a path no route has');
  }

  const server = createHttpServer(app.fetch, { hostname: config.host, log, maxConnections: config.maxConnections ?? defaultMaxConnections() });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, OPERATOR_DEFAULTS.listenBacklog, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  let serving: Promise<void> | undefined;
  let releasing: Promise<void> | undefined;
  const phases = {
    stopServing: () => (serving ??= stopServing(server)),
    release: () =>
      (releasing ??= (async () => {
        await quota.close?.();
        storageHealth.close();
        await storage.close?.();
        await store.close();
        await storeStorage?.close?.();
        db?.close();
        await flushLog(log);
      })()),
  };
  const close = async () => {
    await phases.stopServing();
    await phases.release();
  };
  const shutdown = (options?: ShutdownOptions) => shutDown(shutdownState, server, phases, log, options);
  return { url, server, db, store, snapshots, close, shutdown };
}

/**
 * Stops accepting, lets in-flight requests finish, and resolves once every connection is closed.
 * net.Server's close, not http.Server's: http's also stops the check that cuts requests past
 * their header and body timeouts, and a client trickling its headers then held the shutdown for
 * as long as it liked (SIGTERM waited 200 s for one byte every 2 s). Connections that turn idle
 * once their response is sent are closed at every check.
 */
async function stopServing(server: Server): Promise<void> {
  const sweep = setInterval(() => server.closeIdleConnections(), OPERATOR_DEFAULTS.timeoutCheckMs);
  try {
    await new Promise<void>((resolve) => {
      NetServer.prototype.close.call(server, () => resolve());
      server.closeIdleConnections();
    });
  } finally {
    clearInterval(sweep);
  }
  // Now http.Server's close, for the rest of its own tidying: it stops that check.
  server.close();
}
