/**
 * Failures visible, once (storage trouble logged once, every wait bounded), through real parts:
 * `snapdeck build`, `gc` and `serve` processes on moto (S3) and Redis. Storage is frozen with
 * SIGSTOP of moto: connections are accepted, nothing answers.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { StorageHealth } from '@snapdeck/gateway';
import { catalogCheckKey, layout } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli, startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { startRedisServer, type RedisTestServer } from './helpers/redis-server.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

const ROOT = join(import.meta.dirname, '..');

let s3: S3TestServer;
let redis: RedisTestServer;
let dir: string;
let cleanup: () => Promise<void>;
let catalogDir: string;
let snapshots: string;
let store: string;
let key: string;
let cardIds: string[];
const gateways: CliGateway[] = [];

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...s3.env, ...env }, timeoutMs: 120_000 });
const metrics = async (gateway: CliGateway) => (await fetch(`${gateway.url}/metrics`)).text();
/** The value of one sample of /metrics (name and labels exactly as printed), or undefined. */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
/** The JSON log lines a gateway wrote on stdout. */
const logLines = (gateway: CliGateway): Array<Record<string, any>> =>
  gateway
    .output()
    .stdout.split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

async function gateway(args: string[], env: Record<string, string> = {}): Promise<CliGateway> {
  const started = await startCliGateway(['--snapshots', snapshots, '--store', store, '--store-poll-ms', '500', ...args], { env: { ...s3.env, LOG_LEVEL: 'info', ...env } });
  gateways.push(started);
  return started;
}

beforeAll(async () => {
  [s3, redis] = await Promise.all([startS3Server(), startRedisServer()]);
  ({ dir, cleanup } = await tempDir('snapdeck-visible-'));
  catalogDir = join(dir, 'catalog');
  const catalogs = await writeGeneratedCatalog(catalogDir, { digimon: 60, gundam: 10, 'grand-archive': 10, 'chrono-core': 10 });
  cardIds = catalogs.digimon!.map((card) => card.id);
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

describe('metrics an operator alerts on', () => {
  it('a build records each catalog check even when nothing changed; gc leaves the record; the gateway exports it', async () => {
    const storage = s3.open(snapshots);
    const read = async () => JSON.parse(Buffer.from((await storage.get(catalogCheckKey('digimon')))!.body).toString('utf8')) as { checkedAt: string; version: string };
    const first = await read();
    const again = await cli(['build', '--catalog', catalogDir, '--out', snapshots]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('already current');
    const second = await read();
    expect(second.version).toBe(first.version);
    expect(Date.parse(second.checkedAt)).toBeGreaterThan(Date.parse(first.checkedAt));
    const gc = await cli(['gc', '--out', snapshots, '--keep', '0', '--min-age', '0']);
    expect(gc.code, gc.stderr).toBe(0);
    expect(await read()).toEqual(second);

    const g = await gateway([]);
    const text = await metrics(g);
    expect(sample(text, 'snapdeck_catalog_checked_timestamp_seconds{game="digimon"}')).toBe(Date.parse(second.checkedAt) / 1000);
    for (const game of ['gundam', 'grand-archive', 'chrono-core']) expect(sample(text, `snapdeck_catalog_checked_timestamp_seconds{game="${game}"}`)).toBeGreaterThan(0);
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const commit = execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=12', '--exclude=*'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(sample(text, `snapdeck_build_info{version="${version}",commit="${commit}",node="${process.version}"}`)).toBe(1);
    expect(await metrics(g)).toMatch(/^snapdeck_http_request_duration_seconds_bucket\{le="60",route="\/metrics"\} 1$/m);
    expect(sample(text, 'snapdeck_storage_errors_total{storage="snapshots",operation="getRange"}')).toBe(0);
  });

  it('every metric the shipped alert rules read is one the gateway exports', async () => {
    const rules = await readFile(join(ROOT, 'deploy', 'prometheus', 'snapdeck.rules.yml'), 'utf8');
    const used = new Set([...rules.matchAll(/\b(snapdeck_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_bucket$/, '')));
    expect(used.size).toBeGreaterThanOrEqual(6);
    const g = await gateway(['--redis', redis.url]);
    const text = await metrics(g);
    for (const name of used) expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
  });
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

/** How long storage stays frozen: the target is stated for an outage of 60 s. */
const FROZEN_MS = 60_000;

describe('storage frozen', () => {
  it('uncached requests answer 500 within the storage timeout; each gateway logs the outage once and its end once', async () => {
    // busy: default storage client settings (whose retries alone would take minutes); idle: a
    // store follower whose polls fail fast, no request at all.
    const [busy, idle] = await Promise.all([gateway([]), gateway([], { SNAPDECK_S3_TIMEOUT_MS: '1000', SNAPDECK_S3_MAX_ATTEMPTS: '1' })]);
    const card = (id: string) => fetch(`${busy.url}/v1/games/digimon/cards/${id}`, { headers: { 'X-API-Key': key } });
    expect((await card(cardIds[0]!)).status).toBe(200);
    // Both started: every game loaded, so the idle one reads no snapshot while frozen.
    for (const g of [busy, idle]) await waitFor(async () => (await fetch(`${g.url}/readyz`)).status === 200, 15_000, 'not ready');
    // The pointer refreshes those requests started are done.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const frozenAt = Date.now();
    s3.pause();
    let timings: number[] = [];
    try {
      // 20 uncached cards, two rounds of 10 concurrent requests.
      for (const round of [cardIds.slice(10, 20), cardIds.slice(30, 40)]) {
        const answers = await Promise.all(
          round.map(async (id) => {
            const started = Date.now();
            const response = await card(id);
            await response.arrayBuffer();
            return { status: response.status, ms: Date.now() - started };
          }),
        );
        expect(answers.map((a) => a.status)).toEqual(round.map(() => 500));
        timings = timings.concat(answers.map((a) => a.ms));
      }
      // The outage lasts FROZEN_MS in all (the target's figure: 60 s).
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, FROZEN_MS - (Date.now() - frozenAt))));
    } finally {
      s3.resume();
    }
    await waitFor(async () => (await card(cardIds[50]!)).status === 200, 30_000, 'storage did not come back');
    const sorted = [...timings].sort((a, b) => a - b);
    const p99 = sorted[Math.ceil(sorted.length * 0.99) - 1]!;
    console.log(`storage frozen: ${timings.length} uncached requests, 500 after ${sorted[0]}..${sorted.at(-1)} ms (p99 ${p99} ms)`);
    expect(p99).toBeLessThanOrEqual(6000);

    // Every outage seen to end, the idle gateway's too (it probes while storage is unreachable).
    const ended = (g: CliGateway) => {
      const lines = logLines(g);
      const count = (prefix: string) => lines.filter((l) => l.msg?.startsWith(prefix)).length;
      return count('storage unreachable') > 0 && count('storage reachable again') >= new Set(lines.filter((l) => l.msg?.startsWith('storage unreachable')).map((l) => l.storage)).size;
    };
    await waitFor(async () => ended(busy) && ended(idle), 20_000, 'an outage was not seen to end');
    for (const [name, g, role] of [['busy', busy, 'snapshots'], ['idle', idle, 'store']] as const) {
      const lines = logLines(g);
      const warns = lines.filter((l) => l.msg?.startsWith('storage unreachable'));
      const infos = lines.filter((l) => l.msg?.startsWith('storage reachable again'));
      console.log(`storage frozen ${FROZEN_MS / 1000} s, ${name} gateway: ${warns.length} warn, ${infos.length} info; request failures logged: ${lines.filter((l) => l.msg?.startsWith('request failed')).length}`);
      expect(warns.length, name).toBeGreaterThanOrEqual(1);
      expect(warns.length, name).toBeLessThanOrEqual(3);
      // One warning per location that failed, repeated at most once a minute (so at most twice in
      // a 60 s outage, with the same `since`), and one line per location when it answered again.
      const warned = [...new Set(warns.map((l) => l.storage as string))];
      for (const storage of warned) {
        const repeats = warns.filter((l) => l.storage === storage);
        expect(repeats.length, `${name} ${storage}`).toBeLessThanOrEqual(2);
        expect(new Set(repeats.map((l) => l.since)).size, `${name} ${storage}`).toBe(1);
      }
      expect(infos.map((l) => l.storage as string).sort(), name).toEqual([...warned].sort());
      // Logged once: the store follower does not log the same outage a second time in its own words.
      expect(lines.filter((l) => /^store: .*(unreachable|reachable again)/.test(l.msg ?? '')).map((l) => l.msg), name).toEqual([]);
      const warn = warns.find((l) => l.storage === role)!;
      expect(warn, name).toMatchObject({ level: 40, storage: role });
      expect(warn.msg).toContain(role === 'store' ? store : snapshots);
      expect(Date.parse(warn.since)).toBeGreaterThanOrEqual(frozenAt - 1000);
      expect(warn.failures).toBeGreaterThanOrEqual(1);
      const info = infos.find((l) => l.storage === role)!;
      expect(info.level).toBe(30);
      expect(info.outageSeconds).toBeGreaterThan(FROZEN_MS / 1000 - 10);
      expect(info.outageSeconds).toBeLessThan(FROZEN_MS / 1000 + 30);
    }
    // 20 failed requests on the busy one: a few lines, not one per request.
    expect(logLines(busy).filter((l) => l.msg?.startsWith('request failed')).length).toBeLessThanOrEqual(5);
    expect(logLines(idle).filter((l) => l.msg === 'request' && l.url.startsWith('/v1'))).toHaveLength(0);
    const errors = await metrics(busy);
    const failed = [...errors.matchAll(/^snapdeck_storage_errors_total\{storage="snapshots",operation="\w+"\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(failed).toBeGreaterThanOrEqual(20);
    const polls = [...(await metrics(idle)).matchAll(/^snapdeck_storage_errors_total\{storage="store",operation="\w+"\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(polls).toBeGreaterThanOrEqual(1);
  }, FROZEN_MS + 120_000);

  it('a long outage repeats its warning at most every warnEveryMs, not per failed call; request failures are logged a few a minute, the rest counted', async () => {
    const lines: Array<Record<string, any>> = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const health = new StorageHealth(log, { warnEveryMs: 2000, probeEveryMs: 500, requestErrorsPerMinute: 3 });
    const driver = health.watch(s3.open(snapshots, { requestTimeoutMs: 300, maxAttempts: 1 }), 'snapshots', 1000);
    // Reachable first (a loaded machine can make moto miss the 300 ms bound of this driver once).
    await waitFor(async () => (await driver.head(layout.pointer('digimon')).catch(() => null)) !== null, 15_000, 'storage not reachable before the outage');
    s3.pause();
    let calls = 0;
    try {
      const until = Date.now() + 5500;
      while (Date.now() < until) {
        calls++;
        const error = await driver.get(layout.pointer('digimon')).then(() => null, (e: unknown) => e);
        expect(error).not.toBeNull();
        expect(health.isStorageFailure(new Error('request failed', { cause: error }))).toBe(true);
        health.logRequestFailure('error', { err: error }, 'request failed: storage unreachable');
      }
    } finally {
      s3.resume();
    }
    // No call after the resume: the probe sees storage back.
    await waitFor(async () => lines.some((l) => l.msg.startsWith('storage reachable again')), 10_000, 'no recovery logged');
    health.close();
    const warns = lines.filter((l) => l.msg.startsWith('storage unreachable'));
    console.log(`5.5 s outage, ${calls} failed calls, warning every 2 s at most: ${warns.length} warn lines`);
    expect(calls).toBeGreaterThanOrEqual(10);
    expect(warns.length).toBeGreaterThanOrEqual(2);
    expect(warns.length).toBeLessThanOrEqual(4);
    expect(warns.at(-1)!.failures).toBeGreaterThan(warns[0]!.failures);
    expect(new Set(warns.map((l) => l.since)).size).toBe(1);
    expect(lines.filter((l) => l.msg.startsWith('request failed'))).toHaveLength(3);
    expect(health.isStorageFailure(new Error('not from storage'))).toBe(false);
    const counted = health.errorCounts().find((c) => c.role === 'snapshots' && c.operation === 'get')!.count;
    expect(counted).toBeGreaterThanOrEqual(calls);
  });
});
