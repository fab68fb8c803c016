/**
 * Failures visible, once (issue 24 items 2 and 3), through real parts: `snapdeck build`, `gc` and
 * `serve` processes on moto (S3) and Redis. Storage is frozen with SIGSTOP of moto: connections
 * are accepted, nothing answers.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli, startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { startRedisServer, type RedisTestServer } from './helpers/redis-server.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

let s3: S3TestServer;
let redis: RedisTestServer;
let dir: string;
let cleanup: () => Promise<void>;
let catalogDir: string;
let snapshots: string;
let store: string;
let key: string;
const gateways: CliGateway[] = [];

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...s3.env, ...env }, timeoutMs: 120_000 });
const metrics = async (gateway: CliGateway) => (await fetch(`${gateway.url}/metrics`)).text();
/** The value of one sample of /metrics (name and labels exactly as printed), or undefined. */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
async function gateway(args: string[], env: Record<string, string> = {}): Promise<CliGateway> {
  const started = await startCliGateway(['--snapshots', snapshots, '--store', store, '--store-poll-ms', '500', ...args], { env: { ...s3.env, LOG_LEVEL: 'info', ...env } });
  gateways.push(started);
  return started;
}

beforeAll(async () => {
  [s3, redis] = await Promise.all([startS3Server(), startRedisServer()]);
  ({ dir, cleanup } = await tempDir('snapdeck-visible-'));
  catalogDir = join(dir, 'catalog');
  await writeGeneratedCatalog(catalogDir, { digimon: 60, gundam: 10, 'grand-archive': 10, 'chrono-core': 10 });
  snapshots = s3.newLocation('cards');
  store = s3.newLocation('store');
  const built = await cli(['build', '--catalog', catalogDir, '--out', snapshots]);
  expect(built.code, built.stderr).toBe(0);
  const created = await cli(['keys', 'create', '--name', 'ops', '--quota', '100000', '--db', join(dir, 'writer.db'), '--publish', store]);
  expect(created.code, created.stderr).toBe(0);
  key = created.stdout.trim();
});

afterAll(async () => {
  s3?.resume();
  await Promise.all(gateways.map((g) => g.stop()));
  await Promise.all([s3?.stop(), redis?.stop()]);
  await cleanup?.();
});

describe('Redis back: snapdeck_quota_degraded clears without traffic', () => {
  it('returns to 0 within 5 s on an idle gateway', async () => {
    const g = await gateway(['--redis', redis.url]);
    const keyed = () => fetch(`${g.url}/v1/games/digimon/cards?hitsPerPage=1`, { headers: { 'X-API-Key': key } });
    expect((await keyed()).status).toBe(200);
    redis.process.kill('SIGSTOP');
    try {
      // A quota command that takes over 250 ms: the gateway counts in-process, degraded.
      expect((await keyed()).status).toBe(200);
      expect(sample(await metrics(g), 'snapdeck_quota_degraded')).toBe(1);
    } finally {
      redis.process.kill('SIGCONT');
    }
    const back = Date.now();
    await waitFor(async () => sample(await metrics(g), 'snapdeck_quota_degraded') === 0, 15_000, 'snapdeck_quota_degraded still 1');
    const seconds = (Date.now() - back) / 1000;
    console.log(`Redis back: snapdeck_quota_degraded 0 after ${seconds.toFixed(1)} s, no request meanwhile`);
    expect(seconds).toBeLessThanOrEqual(5);
  });
});

