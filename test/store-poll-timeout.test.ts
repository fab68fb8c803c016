/**
 * "The store follower's polls have their own bound". A follower reaching S3
 * (moto) through the fault-injecting proxy, with the S3 client's own timeouts (120 s per attempt):
 * while storage is frozen (connections accepted, nothing answered), each poll gives up after the
 * poll timeout, the last version keeps being served, and the follower catches up as soon as
 * storage answers again.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { type StorageDriver } from '@snapdeck/snapshot';
import { KeyStore, StoreFollower, openDatabase, publishStore, type Db } from '@snapdeck/store';
import { startFaultProxy, type FaultProxy } from './helpers/fault-proxy.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

const POLL_TIMEOUT_MS = 800;
let s3: S3TestServer;
let proxy: FaultProxy;
let dir: string;
let cleanup: () => Promise<void>;
let db: Db;
let writer: StorageDriver;
let proxied: StorageDriver;
let follower: StoreFollower;
let opsKey: string;

beforeAll(async () => {
  s3 = await startS3Server();
  proxy = await startFaultProxy(s3, { seed: 24 });
  ({ dir, cleanup } = await tempDir('snapdeck-store-poll-timeout-'));
  const location = s3.newLocation('store');
  writer = s3.open(location);
  proxied = proxy.open(location);
  db = openDatabase(join(dir, 'writer.db'));
  opsKey = new KeyStore(db).create({ name: 'ops' }).key;
  await publishStore(db, writer);
  // A poll interval longer than the test: only the refreshes it asks for look at storage.
  follower = new StoreFollower(proxied, { pollMs: 600_000, pollTimeoutMs: POLL_TIMEOUT_MS, presenceMs: 600_000 });
  await follower.start();
});

afterAll(async () => {
  proxy?.clear();
  await follower?.close();
  db?.close();
  await writer?.close?.();
  await proxied?.close?.();
  await proxy?.stop();
  await s3?.stop();
  await cleanup?.();
});

describe('the store follower under frozen storage', () => {
  it('has a default bound in the operator defaults, below the S3 client timeout', () => {
    expect(OPERATOR_DEFAULTS.storePollTimeoutMs).toBeGreaterThan(0);
    expect(OPERATOR_DEFAULTS.storePollTimeoutMs).toBeLessThan(120_000);
  });

  it('a poll gives up after the poll timeout, keeps serving its version, and catches up once storage answers', async () => {
    const served = follower.status().version;
    expect(served).not.toBeNull();
    const keys = new KeyStore(db);
    const { key, record } = keys.create({ name: 'frozen' });
    keys.revoke(record.id);
    proxy.freeze();
    try {
      await publishStore(db, writer); // straight to moto: only the follower's side is frozen
      const started = Date.now();
      await follower.refresh();
      const ms = Date.now() - started;
      console.log(`frozen storage: a poll gave up after ${ms} ms (poll timeout ${POLL_TIMEOUT_MS} ms)`);
      expect(ms).toBeGreaterThanOrEqual(POLL_TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(POLL_TIMEOUT_MS + 1500);
      const status = follower.status();
      expect(status.version).toBe(served);
      expect(status.ready).toBe(true);
      expect(status.problem).toMatch(/gave no answer within 800 ms/);
      // Still served from the last version while frozen.
      const lease = follower.acquire();
      try {
        expect(lease.view.keys.authenticate(opsKey)?.name).toBe('ops');
        expect(lease.view.keys.authenticate(key)).toBeNull();
      } finally {
        lease.release();
      }
      // A second poll while frozen is bounded too (nothing piles up behind the first).
      const again = Date.now();
      await follower.refresh();
      expect(Date.now() - again).toBeLessThan(POLL_TIMEOUT_MS + 1500);
    } finally {
      proxy.unfreeze();
    }
    const newest = (await writer.get('_store/current.json'))!;
    const pointer = JSON.parse(Buffer.from(newest.body).toString('utf8')) as { version: string };
    await waitFor(async () => {
      await follower.refresh();
      return follower.status().version === pointer.version;
    }, 10_000, 'the follower did not catch up after storage answered again');
    expect(follower.status().problem).toBeNull();
  });
});
