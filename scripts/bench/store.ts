/**
 * Published-store benchmark. Prints, from one run on this machine:
 *   (a) publish time and published bytes of a full store (keys, tokens, decks) at 200,000 and
 *       1,000,000 decks, and of a key change at each size (only the small auth part is sent);
 *   (b) key-create and key-revoke propagation to two `serve --store` gateways: from the moment
 *       the publish has returned until both answer 200 (resp. 401), p50 and p99 of 50 trials each
 *       (target p99 ≤ 5 s), with the million-deck store;
 *   (c) deck-import propagation: an import of 100 decks published, until both gateways serve them
 *       (the decks part is rebuilt, uploaded and downloaded whole: this is the figure that grows
 *       with the store);
 *   (d) gateway RSS (peak) while it downloads and swaps to a new million-deck decks part;
 *   (e) deck endpoints' requests/s (wrk) with --store against --db on the same million decks in the
 *       same run (target ≥ 0.95×);
 *   (f) key revoke → 401 on both gateways while storage fails: every request failing for
 *       2 s around the publish, then one request in three failing at random; p50 and p99 of
 *       --fault-trials trials each (default 50, target p99 ≤ 5 s), on S3 (moto) behind the
 *       fault-injecting proxy, gateways with the default poll (1 s) and S3 retries
 *       (lib/store-faults.ts). `--only faults` runs (f) alone (a minute or two per 10 trials);
 *   (g) purge-to-gateways delay with an 8 s decks download: `decks import --publish
 *       --purge` making a deck private, two gateways (one whose decks download the fault proxy
 *       slows to 8 s), a local server standing in for the cache; per trial and p50/max: publish
 *       done → PURGE received, whether both gateways served the new decks at that moment, the
 *       command's total time (lib/store-purge.ts; --purge-trials, default 5). `--only purge` runs
 *       (g) alone (about 15 s a trial).
 * The store is a local folder (S3's driver code minus the network; moto is far too slow for GBs).
 * Deck databases: seeded generator, cached in the OS temp folder by count, seed, templates, schema.
 *   (h) deck deltas: imports of 100 and 1,000 decks into a store of --decks N (default 1,000,000):
 *       bytes uploaded, bytes downloaded per gateway, command return → served by both gateways,
 *       storage requests, then --successive imports and the storage used (lib/store-incremental.ts).
 *       `--only incremental` runs (h) alone; the full run ends with it. `--only core` runs (a)-(e).
 *   (i) the writer's publish per import, command start to exit (lib/store-writer.ts): `--only writer
 *       --sizes 300000,1000000 --imports 5`, `--before DIR` to time another checkout's CLI alike.
 * Usage: npm run bench:store [-- --seconds 8 --rounds 5 --fresh --fault-trials 50 --purge-trials 5 --only core|faults|purge|incremental|writer
 *   --decks 1000000 --imports100 20 --imports1000 20 --successive 100 --data-dir DIR (where generated databases are kept)]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FsDriver } from '@snapdeck/snapshot';
import { KeyStore, importDecks, openDatabase, publishStore, type Db } from '@snapdeck/store';
import { SYNTHETIC_TEMPLATES, generateDeckLines } from '../lib/deck-generator.ts';
import { writeDefaultCatalog } from '../generate-catalog.ts';
import { rssMB, startGatewayProcess, waitForHttp } from './lib/process.ts';
import { revokeUnderFaults } from './lib/store-faults.ts';
import { DECKS_DOWNLOAD_MS, purgeAfterSlowDownload } from './lib/store-purge.ts';
import { incrementalImports } from './lib/store-incremental.ts';
import { writerPublishes } from './lib/store-writer.ts';
import { cachedDeckDatabase } from './lib/bench-decks-db.ts';
import { PINNING, ensureWrk, pinServer, runWrk } from './lib/wrk.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'packages', 'cli', 'bin', 'snapdeck.js');
const SEED = 20_261_122;
const TRIALS = 50;
/** GET /v1/decks/{id} is limited per client address: wrk is one address. */
const ADDRESS_QUOTA = 1_000_000_000;
const args = process.argv.slice(2);
const seconds = Number(args[args.indexOf('--seconds') + 1] || 0) || 8;
const fresh = args.includes('--fresh');
/** (e): rounds of one --store run then one --db run; the ratio is the median of the rounds' ratios. */
const rounds = Number(args[args.indexOf('--rounds') + 1] || 0) || 5;
/** (f): trials per fault scenario. */
const faultTrials = Number(args.includes('--fault-trials') ? args[args.indexOf('--fault-trials') + 1] : 0) || TRIALS;
/** (g): trials of the purge after an 8 s decks download. */
const purgeTrials = Number(args.includes('--purge-trials') ? args[args.indexOf('--purge-trials') + 1] : 0) || 5;
const PARTS = ['core', 'faults', 'purge', 'incremental', 'writer'] as const;
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
if (only !== undefined && !(PARTS as readonly string[]).includes(only)) {
  console.error(`--only takes one of: ${PARTS.join(', ')} (got ${only ?? 'nothing'})`);
  process.exit(2);
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
};
const median = (values: number[]) => quantile(values, 0.5);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A database of `count` generated decks (lib/bench-decks-db.ts), cached under --data-dir (default: the OS temp folder). */
const deckDatabase = (count: number, work: string, name = '') =>
  cachedDeckDatabase({ count, seed: SEED, work, name, fresh, dataDir: args.includes('--data-dir') ? args[args.indexOf('--data-dir') + 1]! : tmpdir() });

function startStoreGateway(port: number, snapshots: string, location: string, cacheDir: string): Promise<ChildProcess> {
  const gateway = spawn(process.execPath, [cli, 'serve', '--port', String(port), '--snapshots', snapshots, '--store', location, '--cache-dir', cacheDir, '--store-poll-ms', '500', '--address-quota', String(ADDRESS_QUOTA)], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  pinServer(gateway.pid);
  return waitForHttp(`http://127.0.0.1:${port}/healthz`, 600).then(() => gateway);
}

async function statusOf(url: string, key?: string): Promise<number> {
  try {
    const response = await fetch(url, { headers: key ? { 'X-API-Key': key } : {} });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** ms from now until `check` holds on every base URL (polled every 10 ms). */
async function until(bases: string[], check: (base: string) => Promise<boolean>, limitMs = 600_000): Promise<number> {
  const started = performance.now();
  const pending = new Set(bases);
  while (pending.size > 0) {
    for (const base of [...pending]) if (await check(base)) pending.delete(base);
    if (pending.size === 0) break;
    if (performance.now() - started > limitMs) throw new Error('did not propagate');
    await sleep(10);
  }
  return performance.now() - started;
}

/** Card snapshots of the default catalog, for the gateways to start on. */
function buildSnapshots(work: string): string {
  const catalogDir = join(work, 'catalog');
  writeDefaultCatalog(catalogDir);
  const snapshots = join(work, 'snapshots');
  if (spawnSync(process.execPath, [cli, 'build', '--catalog', catalogDir, '--out', snapshots], { stdio: ['ignore', 'ignore', 'inherit'] }).status !== 0) throw new Error('build failed');
  return snapshots;
}

/** (f): revoke → 401 on both gateways under storage faults. */
async function faults(work: string, snapshots: string, children: ChildProcess[]): Promise<void> {
  const figures = await revokeUnderFaults({ cli, work, snapshots, trials: faultTrials, ports: [18794, 18795], children });
  const slowest = (values: number[]) => [...values].sort((a, b) => b - a).slice(0, 5).map((v) => v.toFixed(0)).join(', ');
  const fmt = (values: number[]) =>
    `p50 ${quantile(values, 0.5).toFixed(0)} ms, p99 ${quantile(values, 0.99).toFixed(0)} ms (target p99 ≤ 5000 ms ${quantile(values, 0.99) <= 5000 ? 'ok' : 'MISSED'}), slowest ${slowest(values)} ms`;
  console.log(`(f) key revoke → 401 on both gateways under storage faults (S3 on moto behind a fault-injecting proxy, default poll 1 s, ${faultTrials} trials each):`);
  console.log(`    every request failing for 2 s around the publish: ${fmt(figures.outage)}; ${figures.failedRequests.outage} requests failed`);
  console.log(`    one request in three failing at random (right after those outages: the S3 client's retry quota is spent): ${fmt(figures.oneInThree)}; ${figures.failedRequests.oneInThree} requests failed`);
}

/** (g): purge-to-gateways delay with an 8 s decks download. */
async function purge(work: string, snapshots: string): Promise<void> {
  const trials = await purgeAfterSlowDownload({ work, snapshots, trials: purgeTrials });
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const summary = (values: number[]) => `p50 ${s(quantile(values, 0.5))} s, max ${s(Math.max(...values))} s`;
  console.log(`(g) purge-to-gateways delay, decks import --publish --purge making a deck private, one gateway's decks download slowed to ${DECKS_DOWNLOAD_MS / 1000} s (S3 on moto, default poll 1 s, ${trials.length} trials):`);
  console.log('    trial | publish done → PURGE | slow download began → PURGE | both gateways served the new decks at the PURGE | command total | exit');
  for (const [i, t] of trials.entries()) {
    const served = t.served.map((g) => `${g.decksVersion === t.version ? 'new decks' : 'OLD decks'}, deck ${g.deck}`).join(' / ');
    console.log(`    ${String(i + 1).padStart(5)} | ${`${s(t.publishToPurgeMs)} s`.padStart(20)} | ${(t.downloadToPurgeMs === null ? '—' : `${s(t.downloadToPurgeMs)} s`).padStart(27)} | ${`${t.bothServed ? 'yes' : 'NO'} (${served})`.padEnd(47)} | ${`${s(t.commandMs)} s`.padStart(13)} | ${t.exitCode}`);
  }
  const downloads = trials.flatMap((t) => (t.downloadToPurgeMs === null ? [] : [t.downloadToPurgeMs]));
  console.log(`    publish done → PURGE ${summary(trials.map((t) => t.publishToPurgeMs))}; slow download began → PURGE ${downloads.length ? summary(downloads) : '—'}; command ${summary(trials.map((t) => t.commandMs))}; both gateways served the new decks at the PURGE in ${trials.filter((t) => t.bothServed).length} of ${trials.length} trials`);
}

const numberArg = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
/** (h): incremental decks parts (deck changes cost what changed). */
async function incremental(work: string, snapshots: string, children: ChildProcess[]): Promise<void> {
  const count = numberArg('--decks', 1_000_000);
  await incrementalImports({
    cli, work, snapshots, dbFile: await deckDatabase(count, work), count, seed: SEED, ports: [18796, 18797], children,
    imports100: numberArg('--imports100', 20), imports1000: numberArg('--imports1000', 20), successive: numberArg('--successive', 100),
  });
  for (const child of children) child.kill('SIGTERM');
}

/** (i): the writer's publish per import, this checkout's CLI and (--before DIR) another's. */
async function writer(work: string): Promise<void> {
  const before = args.includes('--before') ? [{ name: 'before', cli: join(resolve(args[args.indexOf('--before') + 1]!), 'packages', 'cli', 'bin', 'snapdeck.js') }] : [];
  const sizes = (args.includes('--sizes') ? args[args.indexOf('--sizes') + 1]! : '300000,1000000').split(',').map(Number);
  await writerPublishes({ clis: [...before, { name: 'after', cli }], work, sizes, imports: numberArg('--imports', 5), seed: SEED, database: (count, name) => deckDatabase(count, work, name) });
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-store-'));
  const children: ChildProcess[] = [];
  process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));
  console.log(`snapdeck store benchmark — ${new Date().toISOString()}, node ${process.version}, ${PINNING}`);
  console.log('2-core machine with other work running in parallel: figures are noisy.\n');
  if (only !== undefined && only !== 'core') {
    const snapshots = buildSnapshots(work);
    if (only === 'faults') await faults(work, snapshots, children);
    else if (only === 'purge') await purge(work, snapshots);
    else if (only === 'writer') await writer(work);
    else await incremental(work, snapshots, children);
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
    await rm(work, { recursive: true, force: true });
    return;
  }
  ensureWrk();

  // (a) publish time and bytes.
  const publishAt = async (count: number): Promise<{ db: Db; file: string; location: string }> => {
    const file = await deckDatabase(count, work);
    const db = openDatabase(file);
    const keys = new KeyStore(db);
    for (let i = 0; i < 100; i++) keys.create({ name: `partner ${i}` });
    const location = join(work, `store-${count}`);
    const driver = new FsDriver(location);
    const full = await publishStore(db, driver);
    keys.create({ name: 'one more' });
    const keyChange = await publishStore(db, driver);
    console.log(`(a) ${count.toLocaleString('en')} decks (${mb(statSync(file).size)} database): full publish ${(full.elapsedMs / 1000).toFixed(1)} s, ${mb(full.bytesSent)} sent (decks part ${mb(full.sizes.decks)}, auth part ${(full.sizes.auth / 1e3).toFixed(0)} kB); a key change: ${keyChange.elapsedMs} ms, ${(keyChange.bytesSent / 1e3).toFixed(0)} kB sent`);
    return { db, file, location };
  };
  const small = await publishAt(200_000);
  small.db.close();
  const { db, file, location } = await publishAt(1_000_000);

  const snapshots = buildSnapshots(work);

  // Two followers of the million-deck store.
  const t0 = performance.now();
  const ports = [18791, 18792];
  const followers = await Promise.all(ports.map((port, i) => startStoreGateway(port, snapshots, location, join(work, `cache-${i}`))));
  children.push(...followers);
  const bases = ports.map((port) => `http://127.0.0.1:${port}`);
  await until(bases, async (base) => (await statusOf(`${base}/readyz`)) === 200);
  console.log(`\ntwo --store gateways started on the million-deck store (download + open) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // (b) key propagation.
  const keys = new KeyStore(db);
  const driver = new FsDriver(location);
  const create: number[] = [];
  const revoke: number[] = [];
  const probe = (base: string) => `${base}/v1/games`;
  for (let i = 0; i < TRIALS; i++) {
    const { key, record } = keys.create({ name: `trial ${i}` });
    await publishStore(db, driver);
    create.push(await until(bases, async (base) => (await statusOf(probe(base), key)) === 200));
    keys.revoke(record.id);
    await publishStore(db, driver);
    revoke.push(await until(bases, async (base) => (await statusOf(probe(base), key)) === 401));
  }
  const fmt = (values: number[]) => `p50 ${quantile(values, 0.5).toFixed(0)} ms, p99 ${quantile(values, 0.99).toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`;
  console.log(`(b) key create → 200 on both gateways (${TRIALS} trials, gateways poll every 500 ms): ${fmt(create)}`);
  console.log(`    key revoke → 401 on both gateways (${TRIALS} trials): ${fmt(revoke)}`);

  // (c) + (d) deck import propagation, with the gateways' RSS sampled while they swap.
  const { key } = keys.create({ name: 'reader', scopes: ['decks:browse:public', 'decks:read:public'], quota: 1_000_000_000 });
  await publishStore(db, driver);
  await until(bases, async (base) => (await statusOf(probe(base), key)) === 200);
  const before = followers.map((f) => rssMB(f.pid!).rss);
  let peak = [0, 0];
  const sampler = setInterval(() => (peak = followers.map((f, i) => Math.max(peak[i]!, rssMB(f.pid!).rss))), 50);
  const newDecks = [...generateDeckLines({ seed: SEED + 1, count: 100, templates: SYNTHETIC_TEMPLATES })];
  const marker = JSON.parse(newDecks[0]!) as { id: string };
  const started = performance.now();
  await importDecks(db, newDecks);
  const published = await publishStore(db, driver);
  const publishMs = performance.now() - started;
  const visible = await until(bases, async (base) => (await statusOf(`${base}/v1/decks/${marker.id}`)) !== 404);
  clearInterval(sampler);
  console.log(`(c) deck import of 100 decks into 1,000,000: published in ${(publishMs / 1000).toFixed(1)} s (${mb(published.bytesSent)} sent), served by both gateways ${(visible / 1000).toFixed(1)} s after the publish returned`);
  console.log(`(d) gateway RSS while downloading and swapping the million-deck decks part: before ${before.map((v) => v.toFixed(0)).join(' / ')} MB, peak ${peak.map((v) => v.toFixed(0)).join(' / ')} MB (the part is ${mb(published.sizes.decks)} on disk)`);

  // (e) throughput, --store against --db on the same decks.
  for (const f of followers.slice(1)) f.kill('SIGTERM');
  db.close();
  const { gateway: local, base: localBase } = await startGatewayProcess(cli, 18793, snapshots, file, ['--address-quota', String(ADDRESS_QUOTA)]);
  children.push(local);
  const storeBase = `${bases[0]}/v1`;
  const deckId = marker.id;
  const endpoints = [
    { name: 'GET /v1/decks/{id}', path: `/decks/${deckId}`, headers: {} as Record<string, string> },
    { name: 'GET /v1/decks/public (limit 50)', path: '/decks/public?gameId=digimon&limit=50', headers: { 'X-API-Key': key } },
  ];
  console.log(`(e) requests/s, wrk 50 connections, ${seconds} s per run, alternating:`);
  for (const endpoint of endpoints) {
    const results: Array<{ store: number; db: number }> = [];
    for (let round = 0; round < rounds; round++) {
      const s = runWrk(`${storeBase}${endpoint.path}`, { connections: 50, seconds, headers: endpoint.headers });
      const d = runWrk(`${localBase}${endpoint.path}`, { connections: 50, seconds, headers: endpoint.headers });
      if (s.non2xx || d.non2xx) throw new Error(`${endpoint.name}: non-2xx answers (${s.non2xx} / ${d.non2xx})`);
      results.push({ store: s.requestsPerSecond, db: d.requestsPerSecond });
    }
    // Paired rounds: load from elsewhere on the machine hits a round's two runs alike, so the
    // median of the per-round ratios is steadier than a ratio of best runs.
    const ratio = median(results.map((r) => r.store / r.db));
    const list = (pick: (r: { store: number; db: number }) => number) => results.map((r) => pick(r).toFixed(0)).join(' / ');
    console.log(`    ${endpoint.name}: --store ${list((r) => r.store)}/s, --db ${list((r) => r.db)}/s → median ratio ${ratio.toFixed(2)}× (target ≥ 0.95× ${ratio >= 0.95 ? 'ok' : 'MISSED'})`);
  }
  for (const child of children) child.kill('SIGTERM');
  if (only !== 'core') {
    await faults(work, snapshots, children);
    for (const child of children) child.kill('SIGTERM');
    await purge(work, snapshots);
    await incremental(work, snapshots, children);
  }
  await sleep(500);
  await rm(work, { recursive: true, force: true, maxRetries: 60, retryDelay: 500 }); // draining gateways still write presence
}

await main();
