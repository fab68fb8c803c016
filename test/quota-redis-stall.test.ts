import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build } from '@snapdeck/snapshot';
import { RedisQuotaCounter, quotaKey, windowOf } from '@snapdeck/gateway';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';
import { startRedisServer, type RedisTestServer } from './helpers/redis-server.ts';

// A Redis that stops answering for a while (SIGSTOP: a long fork, a swapped-out host, a network
// that drops packets) and then runs everything it was sent. What the gateway decided in-process
// meanwhile must not be counted in Redis too once it resumes, and no request may wait on Redis
// longer than the quota command timeout.

const QUOTA = 1000;
const STALL_MS = 2000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the next quota window when this one ends within 30 s: a test's counts stay in one window. */
async function awayFromWindowEnd(): Promise<void> {
  const left = windowOf(Date.now()).end - Date.now();
  if (left < 30_000) await sleep(left + 100);
}

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-redis-stall-'));
});
afterAll(() => cleanup?.());

describe('a 2-s Redis stall during 200 concurrent requests of one key (quota 1,000, above the stalled traffic)', () => {
  let redisServer: RedisTestServer;
  let admin: Redis;
  let gateway: CliGateway;

  beforeAll(async () => {
    redisServer = await startRedisServer();
    admin = new Redis(redisServer.url);
    await writeGeneratedCatalog(join(dir, 'catalog'), { 'chrono-core': 5 });
    await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1] });
    openDatabase(join(dir, 'snapdeck.db')).close();
    gateway = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--redis', redisServer.url]);
  });
  afterAll(async () => {
    await gateway?.stop();
    admin?.disconnect();
    redisServer?.process.kill('SIGCONT');
    await redisServer?.stop();
  });

  it('counts in Redis only what Redis decided, so the key still gets its whole quota from Redis afterwards', async () => {
    const db = openDatabase(join(dir, 'snapdeck.db'));
    const { key, record } = new KeyStore(db).create({ name: 'stall', quota: QUOTA });
    db.close();
    const send = async () => {
      const started = Date.now();
      const response = await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key } });
      await response.arrayBuffer();
      return { status: response.status, remaining: Number(response.headers.get('ratelimit-remaining')), ms: Date.now() - started };
    };
    const degraded = async () => /^snapdeck_quota_degraded 1$/m.test(await (await fetch(`${gateway.url}/metrics`)).text());

    await awayFromWindowEnd();
    // Counted in Redis before the stall.
    expect(await send()).toMatchObject({ status: 200, remaining: QUOTA - 1 });
    const counterKey = quotaKey('snapdeck:quota:', `key:${record.id}`, Date.now());
    expect(await admin.get(counterKey)).toBe('1');

    redisServer.process.kill('SIGSTOP');
    const stoppedAt = Date.now();
    const during = await Promise.all(Array.from({ length: 200 }, send));
    const answeredAfter = Date.now() - stoppedAt;
    // Every one was answered while Redis was still stopped: decided in this process, all admitted.
    expect(during.every((r) => r.status === 200)).toBe(true);
    expect(await degraded()).toBe(true);
    console.log(`stall: 200 concurrent requests answered in-process within ${answeredAfter} ms, the slowest in ${Math.max(...during.map((r) => r.ms))} ms`);
    // At least STALL_MS, longer if answering took longer (a loaded machine).
    await sleep(STALL_MS - (Date.now() - stoppedAt));
    redisServer.process.kill('SIGCONT');

    // The gateway notices Redis back by itself (its TIME every second), without a keyed request.
    for (let i = 0; i < 100 && (await degraded()); i++) await sleep(50);
    expect(await degraded()).toBe(false);
    // Redis ran every command it was sent during the stall once it resumed: none of them counted.
    expect(await admin.get(counterKey)).toBe('1');

    // From Redis again: the key is admitted until Redis has counted QUOTA requests, not before.
    const after: { status: number; remaining: number }[] = [];
    while (after.length < QUOTA) after.push(...(await Promise.all(Array.from({ length: 8 }, send))));
    const admitted = after.filter((r) => r.status === 200);
    expect(admitted).toHaveLength(QUOTA - 1);
    expect(admitted.map((r) => r.remaining).sort((a, b) => b - a)).toEqual(Array.from({ length: QUOTA - 1 }, (_, i) => QUOTA - 2 - i));
    expect(after.filter((r) => r.status === 429)).toHaveLength(after.length - (QUOTA - 1));
    expect(await admin.get(counterKey)).toBe(String(1 + after.length));
  }, 90_000);
});

describe('RedisQuotaCounter during a stall', () => {
  it('answers every request within the command timeout of when it asked, whatever the traffic', async () => {
    const stalled = await startRedisServer();
    const admin = new Redis(stalled.url);
    const timeoutMs = 400;
    const counter = new RedisQuotaCounter(stalled.url, { commandTimeoutMs: timeoutMs, keyPrefix: 'snapdeck:quota:worst:' });
    try {
      expect(await counter.ready()).toBe(true);
      await awayFromWindowEnd();
      expect((await counter.consume('k', QUOTA)).remaining).toBe(QUOTA - 1);
      stalled.process.kill('SIGSTOP');
      const stoppedAt = Date.now();
      // 10 requests every 20 ms for as long as the first ones wait: some ask while the first
      // commands are still out, before the counter has given up on Redis.
      const latencies: number[] = [];
      const decisions = [];
      while (Date.now() - stoppedAt < timeoutMs) {
        for (let i = 0; i < 10; i++) {
          const asked = Date.now();
          decisions.push(Promise.resolve(counter.consume('k', QUOTA)).then((d) => (latencies.push(Date.now() - asked), d)));
        }
        await sleep(20);
      }
      expect((await Promise.all(decisions)).every((d) => d.allowed)).toBe(true);
      const worst = Math.max(...latencies);
      console.log(`stall: ${latencies.length} requests over ${timeoutMs} ms, command timeout ${timeoutMs} ms: the slowest answered in ${worst} ms`);
      // Not twice the timeout (a command queued behind a stalled pipeline, then timed out itself).
      expect(worst).toBeLessThan(timeoutMs * 1.5);
      await sleep(STALL_MS - (Date.now() - stoppedAt));
      stalled.process.kill('SIGCONT');
      for (let i = 0; i < 100 && counter.degraded; i++) await sleep(50);
      expect(counter.degraded).toBe(false);
      expect(await admin.get(quotaKey('snapdeck:quota:worst:', 'k', Date.now()))).toBe('1');
    } finally {
      stalled.process.kill('SIGCONT');
      await counter.close();
      admin.disconnect();
      await stalled.stop();
    }
  }, 60_000);
});

describe('clocks', () => {
  it('a Redis whose clock is ahead by more than the timeout counts nothing; the gateway says so, counts in-process, and shares again once the clocks agree', async () => {
    const server = await startRedisServer();
    const admin = new Redis(server.url);
    const errors: { msg: string; fields: Record<string, unknown> }[] = [];
    const warnings: string[] = [];
    const log = { error: (fields: Record<string, unknown>, msg: string) => errors.push({ fields, msg }), warn: (_: unknown, msg: string) => warnings.push(msg), info: () => {} };
    // This host's clock reads 5 s behind Redis's, until it is set right.
    let behindMs = 5000;
    const now = () => Date.now() - behindMs;
    const counter = new RedisQuotaCounter(server.url, { now, log: log as never, retryAfterMs: 200, keyPrefix: 'snapdeck:quota:skew:' });
    try {
      expect(await counter.ready()).toBe(true);
      await awayFromWindowEnd();
      const decisions = [];
      for (let i = 0; i < 3; i++) decisions.push(await counter.consume('k', 2));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
      expect(counter.degraded).toBe(true);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.msg).toMatch(/after its deadline/);
      expect(errors[0]!.fields.redisClockAheadAtLeastMs).toBeGreaterThanOrEqual(4000);
      // Redis answers its TIME meanwhile, but its clock is still ahead: still degraded.
      await sleep(600);
      expect(counter.degraded).toBe(true);
      expect(await admin.get(quotaKey('snapdeck:quota:skew:', 'k', Date.now()))).toBeNull();

      behindMs = 0;
      for (let i = 0; i < 40 && counter.degraded; i++) await sleep(50);
      expect(counter.degraded).toBe(false);
      expect(warnings).toHaveLength(1);
      expect((await counter.consume('k', 2)).remaining).toBe(1);
      expect(await admin.get(quotaKey('snapdeck:quota:skew:', 'k', Date.now()))).toBe('1');
      expect(errors).toHaveLength(1);
    } finally {
      await counter.close();
      admin.disconnect();
      await server.stop();
    }
  });
});
