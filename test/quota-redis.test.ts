import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { QUOTA_SCRIPT, RedisQuotaCounter, WINDOW_SECONDS, quotaKey, windowOf } from '@snapdeck/gateway';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';
import { startRedisServer, type RedisTestServer } from './helpers/redis-server.ts';

const GRACE_MS = 60_000;

let redisServer: RedisTestServer;
let admin: Redis;
let dir: string;
let cleanup: () => Promise<void>;
const gateways: CliGateway[] = [];

function createKey(quota: number): { key: string; id: string } {
  const db = openDatabase(join(dir, 'snapdeck.db'));
  try {
    const { key, record } = new KeyStore(db).create({ name: 'redis-test', quota });
    return { key, id: record.id };
  } finally {
    db.close();
  }
}

/** Every key matching `pattern`, by SCAN (never KEYS). */
async function scanKeys(pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await admin.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-redis-'));
  redisServer = await startRedisServer();
  admin = new Redis(redisServer.url);
  admin.on('error', () => {}); // the last test stops the server
  await writeGeneratedCatalog(join(dir, 'catalog'), { 'chrono-core': 20 });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1] });
  createKey(1); // creates the database (and its tables) before two processes open it
  // Two gateway processes, one SQLite file, one Redis.
  for (let i = 0; i < 2; i++) {
    gateways.push(await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--redis', redisServer.url]));
  }
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  admin?.disconnect();
  await redisServer?.stop();
  await cleanup?.();
});

describe('quota shared through Redis by two gateway processes', () => {
  it('admits exactly 30 of 80 concurrent requests split across both processes, with correct headers', async () => {
    const { key, id } = createKey(30);
    const paths = ['/v1/games', '/v1/games/chrono-core/cards', '/v1/games/chrono-core/cards/WNR01-001', '/v1/games/nope/cards'];
    const send = async (i: number) => {
      const response = await fetch(`${gateways[i % 2]!.url}${paths[i % paths.length]}`, { headers: { 'X-API-Key': key } });
      return { status: response.status, headers: response.headers, body: await response.text(), process: i % 2 };
    };
    // One request to each process first, one after the other: the second process already sees the
    // first one's count (remaining 28), and each process is sure to admit one whatever the
    // scheduling of the 78 concurrent ones (on a loaded machine one process can take them all).
    // Every reset is counted from a moment after this one: at most this many seconds.
    const startedAt = Date.now();
    const windowLeft = Math.ceil((windowOf(startedAt).end - startedAt) / 1000);
    const first = [await send(0), await send(1)];
    expect(first.map((r) => [r.status === 429, r.headers.get('ratelimit-remaining')])).toEqual([[false, '29'], [false, '28']]);
    const responses = [...first, ...(await Promise.all(Array.from({ length: 78 }, (_, i) => send(i + 2))))];
    const admitted = responses.filter((r) => r.status !== 429);
    const limited = responses.filter((r) => r.status === 429);
    expect(admitted).toHaveLength(30);
    expect(limited).toHaveLength(50);
    // Both processes admitted some: the count really is shared, not split by chance.
    expect(new Set(admitted.map((r) => r.process)).size).toBe(2);

    for (const r of responses) {
      expect(r.headers.get('ratelimit-policy')).toBe('"default";q=30;w=900');
      expect(r.headers.get('ratelimit-limit')).toBe('30');
      const reset = Number(r.headers.get('ratelimit-reset'));
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(Math.min(WINDOW_SECONDS, windowLeft + 1));
      expect(r.headers.get('ratelimit')).toBe(`"default";r=${r.headers.get('ratelimit-remaining')};t=${reset}`);
    }
    // INCR hands out distinct counts: the admitted requests saw remaining 29, 28, ..., 0 once each.
    const remaining = admitted.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 30 }, (_, i) => i));
    for (const r of limited) {
      expect(JSON.parse(r.body)).toEqual({ error: ERRORS.rateLimitExceeded });
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
      expect(r.headers.get('retry-after')).toBe(r.headers.get('ratelimit-reset'));
    }

    // The key's counter in Redis: named after the window's start, every request counted, expiring.
    const windowStart = windowOf(Date.now()).start / 1000;
    const counterKey = `snapdeck:quota:${windowStart}:key:${id}`;
    expect(await admin.get(counterKey)).toBe('80');
  });

  it('leaves no quota key without an expiry', async () => {
    const keys = await scanKeys('snapdeck:quota:*');
    expect(keys.length).toBeGreaterThan(0);
    const now = Date.now();
    for (const k of keys) {
      const pttl = await admin.pttl(k);
      expect(pttl, k).toBeGreaterThan(0);
      // It expires at its window's end plus the grace period.
      const start = Number(k.split(':')[2]) * 1000;
      const expected = start + WINDOW_SECONDS * 1000 + GRACE_MS - now;
      expect(Math.abs(pttl - expected), k).toBeLessThan(5_000);
    }
  });
});

describe('RedisQuotaCounter', () => {
  it('counts in windows aligned to :00/:15/:30/:45, one key per window, each with an expiry', async () => {
    // A clock near the end of the current window, then at the start of the next one (absolute
    // expiry times must lie ahead of the Redis server's own clock).
    const nextStart = windowOf(Date.now()).end;
    let now = nextStart - 1500;
    const counter = new RedisQuotaCounter(redisServer.url, { now: () => now, keyPrefix: 'snapdeck:quota:align:' });
    try {
      expect(await counter.ready()).toBe(true);
      expect(await counter.consume('k', 2)).toEqual({ allowed: true, quota: 2, remaining: 1, resetSeconds: 2 });
      expect(await counter.consume('k', 2)).toEqual({ allowed: true, quota: 2, remaining: 0, resetSeconds: 2 });
      expect(await counter.consume('k', 2)).toEqual({ allowed: false, quota: 2, remaining: 0, resetSeconds: 2 });
      const firstKey = `snapdeck:quota:align:${(nextStart - WINDOW_SECONDS * 1000) / 1000}:k`;
      expect(quotaKey('snapdeck:quota:align:', 'k', now)).toBe(firstKey);
      expect(await admin.get(firstKey)).toBe('3');
      // Expires at the window's end plus the grace: between now and 61.5 s from the injected clock.
      expect(await admin.pexpiretime(firstKey)).toBe(nextStart + GRACE_MS);

      now = nextStart; // the window turns: a new key, a fresh count, a full window to go
      expect(await counter.consume('k', 2)).toEqual({ allowed: true, quota: 2, remaining: 1, resetSeconds: WINDOW_SECONDS });
      const secondKey = `snapdeck:quota:align:${nextStart / 1000}:k`;
      expect(await admin.get(secondKey)).toBe('1');
      expect(await admin.pexpiretime(secondKey)).toBe(nextStart + WINDOW_SECONDS * 1000 + GRACE_MS);
      expect(new Date(nextStart).getUTCMinutes() % 15).toBe(0);
      expect(new Date(nextStart).getUTCSeconds()).toBe(0);

      // A key that lost its expiry (a manual PERSIST) gets it back on the next request.
      await admin.persist(secondKey);
      await counter.consume('k', 2);
      expect(await admin.pexpiretime(secondKey)).toBe(nextStart + WINDOW_SECONDS * 1000 + GRACE_MS);
    } finally {
      await counter.close();
    }
  });

  it('is exact across connections: 200 concurrent requests on two clients against quota 50 admit 50', async () => {
    const a = new RedisQuotaCounter(redisServer.url, { keyPrefix: 'snapdeck:quota:conc:' });
    const b = new RedisQuotaCounter(redisServer.url, { keyPrefix: 'snapdeck:quota:conc:' });
    try {
      await Promise.all([a.ready(), b.ready()]);
      const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).consume('shared', 50)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
      expect(
        decisions
          .filter((d) => d.allowed)
          .map((d) => d.remaining)
          .sort((x, y) => x - y),
      ).toEqual(Array.from({ length: 50 }, (_, i) => i));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('runs the script by EVALSHA once it is loaded on the connection', async () => {
    const counter = new RedisQuotaCounter(redisServer.url, { keyPrefix: 'snapdeck:quota:sha:' });
    try {
      await counter.ready();
      await counter.consume('x', 5); // the first call on a connection is an EVAL, which loads it
      const sha = (await admin.script('LOAD', QUOTA_SCRIPT)) as string;
      expect(((await admin.script('EXISTS', sha)) as number[])[0]).toBe(1);
      const calls = (info: string, command: string) => Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
      const before = await admin.info('commandstats');
      for (let i = 0; i < 3; i++) await counter.consume('x', 5);
      const after = await admin.info('commandstats');
      expect(calls(after, 'evalsha') - calls(before, 'evalsha')).toBe(3);
      expect(calls(after, 'eval') - calls(before, 'eval')).toBe(0);
    } finally {
      await counter.close();
    }
  });

  it('loads the script again when Redis lost it (SCRIPT FLUSH, a restart), without falling back', async () => {
    const errors: unknown[] = [];
    const log = { error: (o: unknown) => errors.push(o), warn: () => {}, info: () => {} };
    const counter = new RedisQuotaCounter(redisServer.url, { log: log as never, keyPrefix: 'snapdeck:quota:flush:' });
    try {
      await counter.ready();
      expect((await counter.consume('x', 100)).remaining).toBe(99);
      await admin.script('FLUSH');
      // Requests in one turn go out together (auto-pipelining): each is still counted in Redis.
      const together = await Promise.all(Array.from({ length: 5 }, () => counter.consume('x', 100)));
      expect(together.map((d) => d.remaining).sort((a, b) => b - a)).toEqual([98, 97, 96, 95, 94]);
      expect((await counter.consume('x', 100)).remaining).toBe(93);
      expect(counter.degraded).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await counter.close();
    }
  });

  it('fails open to per-process counting while Redis is unreachable, and logs it once', async () => {
    const errors: unknown[] = [];
    const warnings: unknown[] = [];
    const log = { error: (o: unknown) => errors.push(o), warn: (o: unknown) => warnings.push(o), info: () => {} };
    // Nothing listens on port 1.
    const dead = new RedisQuotaCounter('redis://127.0.0.1:1', { log: log as never, connectTimeoutMs: 500 });
    try {
      const started = Date.now();
      expect(await dead.ready()).toBe(false);
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await dead.consume('k', 3));
      expect(Date.now() - started).toBeLessThan(3000);
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(dead.degraded).toBe(true);
      expect(errors).toHaveLength(1);
    } finally {
      await dead.close();
    }
  });

  it('falls back while Redis hangs, then counts in Redis again once it answers', async () => {
    const errors: unknown[] = [];
    const warnings: unknown[] = [];
    const log = { error: (o: unknown) => errors.push(o), warn: (o: unknown) => warnings.push(o), info: () => {} };
    const hung = await startRedisServer();
    const counter = new RedisQuotaCounter(hung.url, { log: log as never, commandTimeoutMs: 100, retryAfterMs: 200, keyPrefix: 'snapdeck:quota:hang:' });
    try {
      expect(await counter.ready()).toBe(true);
      expect((await counter.consume('k', 100)).remaining).toBe(99);
      hung.process.kill('SIGSTOP');
      const started = Date.now();
      const during = await Promise.all(Array.from({ length: 10 }, () => counter.consume('k', 100)));
      expect(Date.now() - started).toBeLessThan(1000);
      expect(during.every((d) => d.allowed)).toBe(true);
      expect(counter.degraded).toBe(true);
      expect(errors).toHaveLength(1);
      hung.process.kill('SIGCONT');
      // Within retryAfterMs plus a little, requests reach Redis again (its count goes on from there).
      let decision = await counter.consume('k', 100);
      for (let i = 0; i < 40 && counter.degraded; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        decision = await counter.consume('k', 100);
      }
      expect(counter.degraded).toBe(false);
      expect(warnings).toHaveLength(1);
      expect(decision.allowed).toBe(true);
    } finally {
      await counter.close();
      await hung.stop();
    }
  });
});

describe('when the shared Redis goes away', () => {
  it('both processes keep answering (no 500), each counting the quota on its own', async () => {
    const { key } = createKey(5);
    await redisServer.stop();
    const responses = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const response = await fetch(`${gateways[i % 2]!.url}/v1/games`, { headers: { 'X-API-Key': key } });
        await response.arrayBuffer();
        return { status: response.status, process: i % 2, remaining: response.headers.get('ratelimit-remaining') };
      }),
    );
    expect(responses.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    // Fail open, per process: each process admits the quota once (documented in quota/redis.ts).
    for (const p of [0, 1]) expect(responses.filter((r) => r.process === p && r.status === 200)).toHaveLength(5);
    expect(responses.every((r) => r.remaining !== null)).toBe(true);
  });
});
