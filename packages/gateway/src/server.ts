import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import pino, { type Logger } from 'pino';
import { SnapshotStore, openStorage } from '@snapdeck/snapshot';
import { createApp } from './app.ts';
import { openDatabase, type Db } from '@snapdeck/store';
import { KeyStore } from '@snapdeck/store';
import { MemoryQuotaCounter, type QuotaCounter } from './quota/counter.ts';
import { RedisQuotaCounter } from './quota/redis.ts';
import { answerClientErrors } from './http/client-error.ts';
import { parseDeprecations, type Deprecation } from './middleware/deprecation.ts';

export interface GatewayConfig {
  port: number;
  host: string;
  /** A folder or s3://bucket/prefix. */
  snapshots: string;
  db: string;
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
}

export interface RunningGateway {
  url: string;
  server: Server;
  db: Db;
  snapshots: SnapshotStore;
  /** Stops accepting connections, lets in-flight requests finish, then closes everything. */
  close(): Promise<void>;
}

export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const log = config.log ?? pino({ level: process.env.LOG_LEVEL ?? 'info' });
  // Checked before anything is opened: a wrong list fails the start-up with its problems named.
  const deprecations = config.deprecations ? parseDeprecations(config.deprecations) : undefined;
  const db = openDatabase(config.db);
  const storage = openStorage(config.snapshots);
  const snapshots = new SnapshotStore(storage, {
    cacheBytes: config.cacheBytes,
    pointerTtlMs: config.pointerTtlMs,
    onError: (err, context) => log.warn({ err }, context),
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
    db,
    keys: new KeyStore(db),
    quota,
    snapshots,
    log,
    addressQuota: config.addressQuota,
    trustProxy: config.trustProxy,
    deprecations,
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
      await storage.close?.();
      db.close();
    })());
  return { url, server, db, snapshots, close };
}
