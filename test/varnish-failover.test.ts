/**
 * The shipped cache configuration serves N gateways: a real Varnish running
 * deploy/varnish/snapdeck.vcl with the shipped backends.vcl (its two gateways' ports replaced by
 * those of two real `snapdeck serve` processes), under 50 requests a second of distinct URLs (each
 * a miss, so each reaches a gateway). One gateway is killed (SIGKILL), brought back on its port,
 * then the other is stopped (SIGTERM).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAME_SLUGS, OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { rawRequest, startVarnish, type VarnishTestServer } from './helpers/varnish-server.ts';

const RATE_PER_SECOND = 50;

let dir: string;
let cleanup: () => Promise<void>;
let snapshots: string;
let db: string;
let key: string;
let cache: VarnishTestServer;
const gateways: CliGateway[] = [];
let ports: number[] = [];

/** Every URL once: games × page sizes, each a miss. */
function* urls(): Generator<string> {
  for (let size = 1; ; size++) for (const game of GAME_SLUGS) yield `/v1/games/${game}/cards?hitsPerPage=${size}`;
}
const next = urls();

interface Outcome {
  at: number;
  status: number;
}

/** Sends RATE_PER_SECOND requests a second for `ms`, running `during` meanwhile; every outcome. */
async function underLoad(ms: number, during: () => Promise<void>): Promise<Outcome[]> {
  const outcomes: Promise<Outcome>[] = [];
  const timer = setInterval(() => {
    const at = Date.now();
    outcomes.push(
      rawRequest(`${cache.url}${next.next().value}`, { headers: { 'X-API-Key': key } }).then(
        (r) => ({ at, status: r.status }),
        () => ({ at, status: 0 }),
      ),
    );
  }, 1000 / RATE_PER_SECOND);
  try {
    await Promise.all([during(), new Promise((resolve) => setTimeout(resolve, ms))]);
  } finally {
    clearInterval(timer);
  }
  return Promise.all(outcomes);
}

// The shipped drain on SIGTERM (the helper's default is none): readiness off, then the port closes.
const serve = (port = 0) => startCliGateway(['--port', String(port), '--snapshots', snapshots, '--db', db], { env: { SNAPDECK_DRAIN_MS: String(OPERATOR_DEFAULTS.drainMs) } });
const healthyThroughVarnish = async () => (await underLoad(1000, async () => {})).every((o) => o.status === 200);

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-failover-'));
  await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 40, gundam: 40, 'grand-archive': 40, 'chrono-core': 40 });
  snapshots = join(dir, 'snapshots');
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(snapshots), hitsPerPage: [100] });
  db = join(dir, 'snapdeck.db');
  const database = openDatabase(db);
  key = new KeyStore(database).create({ name: 'load', quota: 1_000_000 }).key;
  database.close();
  gateways.push(await serve(), await serve());
  ports = gateways.map((g) => Number(new URL(g.url).port));
  cache = await startVarnish({ backendPorts: ports });
});

afterAll(async () => {
  await cache?.stop();
  await Promise.all(gateways.map((g) => g.stop()));
  await cleanup?.();
});

describe('two gateways behind the shipped Varnish configuration', () => {
  it('round robin: both gateways answer', async () => {
    const before = await Promise.all(gateways.map(async (g) => (await (await fetch(`${g.url}/metrics`)).text()).match(/^snapdeck_http_requests_total\{route="\/v1\/games\/:slug\/cards",status="200"\} (\d+)$/m)?.[1] ?? '0'));
    const outcomes = await underLoad(2000, async () => {});
    expect(outcomes.every((o) => o.status === 200)).toBe(true);
    const after = await Promise.all(gateways.map(async (g) => (await (await fetch(`${g.url}/metrics`)).text()).match(/^snapdeck_http_requests_total\{route="\/v1\/games\/:slug\/cards",status="200"\} (\d+)$/m)?.[1] ?? '0'));
    const served = after.map((n, i) => Number(n) - Number(before[i]));
    console.log(`round robin: ${outcomes.length} requests, gateways answered ${served.join(' and ')}`);
    for (const n of served) expect(n).toBeGreaterThan(outcomes.length / 4);
  });

  it('kill -9 of one: failures only within 3 s of the kill, none after', async () => {
    const victim = gateways[0]!;
    let killedAt = 0;
    const outcomes = await underLoad(10_000, async () => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      killedAt = Date.now();
      victim.child.kill('SIGKILL');
    });
    await victim.exited;
    const failed = outcomes.filter((o) => o.status !== 200);
    const late = failed.filter((o) => o.at > killedAt + 3000);
    console.log(
      `kill -9 under ${RATE_PER_SECOND} req/s: ${outcomes.length} requests, ${failed.length} failed (${failed.map((o) => `${o.status} at +${o.at - killedAt} ms`).join(', ') || 'none'}), ${late.length} after 3 s`,
    );
    expect(outcomes.length).toBeGreaterThan(RATE_PER_SECOND * 5);
    expect(failed.every((o) => o.at >= killedAt - 100)).toBe(true);
    expect(late).toEqual([]);
  });

  it('SIGTERM of one (the other brought back on its port): no failed request', async () => {
    gateways[0] = await serve(ports[0]);
    // Its probe sees it again within a few seconds.
    await waitFor(async () => (await fetch(`${gateways[0]!.url}/readyz`)).status === 200, 15_000, 'not ready');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await healthyThroughVarnish()).toBe(true);
    const stopped = gateways[1]!;
    let code: number | string = -1;
    const outcomes = await underLoad(8000, async () => {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      code = await stopped.stop(30_000);
    });
    const failed = outcomes.filter((o) => o.status !== 200);
    console.log(`SIGTERM under ${RATE_PER_SECOND} req/s: ${outcomes.length} requests, ${failed.length} failed; the gateway exited ${code}`);
    expect(code).toBe(0);
    expect(failed).toEqual([]);
  });
});
