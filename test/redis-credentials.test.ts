/**
 * A Redis password is never printed. `serve --redis` against a real
 * `requirepass` Redis, the password given in each form ioredis accepts (user-info, and the
 * `password` query parameter it reads): the gateway authenticates (its quota counts land in Redis
 * and /metrics says it is not degraded), and no line it writes, on stdout (the JSON log, at debug)
 * or stderr, nor /metrics, contains the password: at start, while Redis is down, and with a wrong
 * password.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build } from '@snapdeck/snapshot';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startCliGateway } from './helpers/cli-gateway.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { startRedisServer, type RedisTestServer } from './helpers/redis-server.ts';

const PASSWORD = `s3cr3t-${randomBytes(8).toString('hex')}`;
let redisServer: RedisTestServer;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-redis-auth-'));
  redisServer = await startRedisServer({ password: PASSWORD });
  await writeGeneratedCatalog(join(dir, 'catalog'), { 'chrono-core': 5 });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1] });
});

afterAll(async () => {
  await redisServer?.stop();
  await cleanup?.();
});

function createKey(): { key: string; id: string } {
  const db = openDatabase(join(dir, 'snapdeck.db'));
  try {
    const { key, record } = new KeyStore(db).create({ name: 'redis-auth', quota: 100 });
    return { key, id: record.id };
  } finally {
    db.close();
  }
}

async function metricsOf(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

const FORMS: Array<[string, (port: number) => string]> = [
  ['user-info, no user', (port) => `redis://:${PASSWORD}@127.0.0.1:${port}`],
  ['user-info, the default user', (port) => `redis://default:${PASSWORD}@127.0.0.1:${port}/0`],
  ['the password query parameter', (port) => `redis://127.0.0.1:${port}/?password=${PASSWORD}`],
  ['the query, without a scheme', (port) => `127.0.0.1:${port}?db=0&password=${PASSWORD}`],
];

describe('serve --redis with a password: authenticates, never prints it', () => {
  it.each(FORMS)('%s', async (_form, urlFor) => {
    const admin = new Redis({ port: redisServer.port, host: '127.0.0.1', password: PASSWORD });
    const { key, id } = createKey();
    const gateway = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--redis', urlFor(redisServer.port)], {
      env: { LOG_LEVEL: 'debug' },
    });
    try {
      const response = await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key } });
      expect(response.status).toBe(200);
      // Authenticated: the count is in Redis, and the gateway is not counting on its own.
      const counted = await admin.keys(`snapdeck:quota:*:${id}`);
      expect(counted).toHaveLength(1);
      expect(await admin.get(counted[0]!)).toBe('1');
      expect(await metricsOf(gateway.url)).toMatch(/^snapdeck_quota_degraded 0$/m);
      expect(gateway.output().stderr).toContain('quota: ');

      // Redis goes away: the gateway says so (an error line), still without the password.
      redisServer.process.kill('SIGSTOP');
      try {
        await waitFor(async () => {
          await (await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key } })).arrayBuffer();
          return gateway.output().stdout.includes('Redis unreachable');
        }, 15_000, 'no log line saying Redis is unreachable');
        expect(await metricsOf(gateway.url)).toMatch(/^snapdeck_quota_degraded 1$/m);
        expect(await metricsOf(gateway.url)).not.toContain(PASSWORD);
      } finally {
        redisServer.process.kill('SIGCONT');
      }
      await waitFor(async () => {
        await (await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key } })).arrayBuffer();
        return gateway.output().stdout.includes('Redis answers again');
      }, 15_000, 'no log line saying Redis answers again');
    } finally {
      await gateway.stop();
      admin.disconnect();
    }
    const { stdout, stderr } = gateway.output();
    expect(stdout).toContain('"level":50'); // the error line was written, and it is in what we scan
    expect(stdout).not.toContain(PASSWORD);
    expect(stderr).not.toContain(PASSWORD);
  });

  it('a wrong password is not printed either (the refusal is logged, the quota counted per process)', async () => {
    const wrong = `wr0ng-${randomBytes(8).toString('hex')}`;
    const { key } = createKey();
    const gateway = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--redis', `redis://u53r-name:${wrong}@127.0.0.1:${redisServer.port}/?sentinelPassword=${wrong}x`], {
      env: { LOG_LEVEL: 'debug' },
    });
    try {
      const response = await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key } });
      expect(response.status).toBe(200);
      await waitFor(async () => gateway.output().stdout.includes('Redis unreachable'), 15_000, 'no log line saying Redis refused');
      expect(await metricsOf(gateway.url)).toMatch(/^snapdeck_quota_degraded 1$/m);
    } finally {
      await gateway.stop();
    }
    const { stdout, stderr } = gateway.output();
    for (const secret of [wrong, 'u53r-name']) {
      expect(stdout).not.toContain(secret);
      expect(stderr).not.toContain(secret);
    }
  });
});
