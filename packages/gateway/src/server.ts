import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import pino, { type Logger } from 'pino';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { SnapshotReader, openStorage } from '@snapdeck/snapshot';
import { createApp } from './app.ts';
import { StorageHealth } from './storage-health.ts';
import { LocalStoreSource, StoreFollower, openDatabase, type Db, type StoreSource } from '@snapdeck/store';
import { MemoryQuotaCounter, type QuotaCounter } from './quota/counter.ts';
import { RedisQuotaCounter } from './quota/redis.ts';
import { answerClientErrors } from './http/client-error.ts';
import { parseDeprecations, type Deprecation } from './middleware/deprecation.ts';

export interface GatewayConfig {
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
  /** Fail closed once the store has not been confirmed current for this long (default: never). */
  maxStoreAgeMs?: number;
  /** Memory for page and card bodies (default OPERATOR_DEFAULTS.cacheMiB MiB, the snapshot reader's). */
  cacheBytes?: number;
  pointerTtlMs?: number;
  addressQuota?: number;
  /** Trusted proxy hops for the client address (http/client-address.ts); 0 or absent: none. */
  trustProxy?: number;
  log?: Logger;
  /**
   * redis://host:port: quotas shared by every gateway process using it. Without it, each process
   * counts on its own. While Redis is unreachable, counting falls back to this process (quota/redis.ts).
   */
  redis?: string;
  /** Routes answering with Deprecation / Sunset / Link (validated; see middleware/deprecation.ts). */
  deprecations?: Deprecation[];
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
}

export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const log = config.log ?? pino({ level: process.env.LOG_LEVEL ?? 'info' });
  // Checked before anything is opened: a wrong list fails the start-up with its problems named.
  const deprecations = config.deprecations ? parseDeprecations(config.deprecations) : undefined;
  if (config.db && config.store) throw new Error('give either a database (db) or a published store (store), not both');
  // Every storage call is watched: failures counted, an outage logged once (storage-health.ts).
  const storageHealth = new StorageHealth(log);
  let db: Db | null = null;
  let store: StoreSource;
  let storeStorage: ReturnType<typeof openStorage> | null = null;
  if (config.store) {
    storeStorage = storageHealth.watch(openStorage(config.store), 'store');
    const follower = new StoreFollower(storeStorage, { cacheDir: config.cacheDir, pollMs: config.storePollMs, maxAgeMs: config.maxStoreAgeMs, log });
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
  const app = createApp({
    store,
    quota,
    snapshots,
    log,
    addressQuota: config.addressQuota,
    trustProxy: config.trustProxy,
    deprecations,
    storageHealth,
  });
  for (const d of deprecations ?? []) {
    if (!app.routes.some((route) => route.path === d.path && route.method !== 'ALL')) log.warn({ path: d.path }, 'deprecation configured for a path no route has');
  }

  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s as Server));
    (s as Server).once('error', reject);
  });
  answerClientErrors(server, log);
  // Longer than a typical load balancer's idle timeout, so it closes idle connections first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const address = server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await quota.close?.();
      storageHealth.close();
      await storage.close?.();
      await store.close();
      await storeStorage?.close?.();
      db?.close();
    })());
  return { url, server, db, store, snapshots, close };
}
