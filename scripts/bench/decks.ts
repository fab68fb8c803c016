/**
 * Deck-serving benchmark over 1,000,000 generated decks. Prints, from one run on this machine:
 *   (a) latency of GET /v1/decks/public (limit 50): the first page against a page reached after
 *       100,000 decks (2,000 pages of nextCursor), sequential keep-alive requests, alternating,
 *       median and p99 (target: deep ≤ 1.5× first);
 *   (b) requests/s through the gateway (wrk, keep-alive, 50 connections) of GET /v1/decks/public
 *       (limit 50) and POST /v1/decks/details (50 ids), each against a bare node:http server in
 *       its own process running the same SQL through the same DeckStore code (listPublicDecks;
 *       deckDetails with zone resolution) on the same database (target: gateway ≥ 0.7× bare).
 *
 * The gateway is `snapdeck serve` in its own process (LOG_LEVEL=silent) over snapshots built from
 * the default catalog. The million-deck database is generated with the seeded deck generator and
 * imported with importDecks once, then kept under the OS temp folder, keyed by a version string
 * (deck count, seed, templates, schema), so later runs skip the import. --fresh rebuilds it.
 *
 * Usage: npm run bench:decks [-- --seconds 10 --fresh]
 * (Internally, `decks.ts --bare-server PORT DB SNAPSHOTS` is the baseline server.)
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GameSlug } from '@snapdeck/contract';
import { DECK_CURSOR_SECRET, DeckStore, KeyStore, catalogLookup, deckDetails, getOrCreateSecret, importDecks, listPublicDecks, MIGRATIONS, openDatabase } from '@snapdeck/store';
import { SnapshotReader, openStorage, sha256Hex } from '@snapdeck/snapshot';
import { SYNTHETIC_TEMPLATES, generateDeckLines } from '../lib/deck-generator.ts';
import { writeDefaultCatalog } from '../generate-catalog.ts';
import { rssMB, startGatewayProcess } from './lib/process.ts';
import { PINNING, ensureWrk, pinServer, runWrk, type WrkResult } from './lib/wrk.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const self = fileURLToPath(import.meta.url);
const cli = join(root, 'packages', 'cli', 'bin', 'snapdeck.js');

// ---------------------------------------------------------------------------------------------
// The baseline: node:http, no framework, the same DeckStore calls the routes make.
// ---------------------------------------------------------------------------------------------

async function bareServer(port: number, dbFile: string, snapshotsDir: string): Promise<void> {
  const db = openDatabase(dbFile);
  const store = new DeckStore(db);
  const cursorKey = getOrCreateSecret(db, DECK_CURSOR_SECRET);
  const snapshots = new SnapshotReader(openStorage(snapshotsDir));
  const lookupFor = async (game: GameSlug) => catalogLookup(game, (await snapshots.current(game))!);
  const json = (res: import('node:http').ServerResponse, status: number, body: string) => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/v1/decks/public') {
      const result = listPublicDecks(store, cursorKey, {
        game: (url.searchParams.get('gameId') ?? 'digimon') as GameSlug,
        sort: 'updatedAt',
        limit: Number(url.searchParams.get('limit') ?? 20),
        updatedSince: null,
        startAfter: url.searchParams.get('startAfter') ?? undefined,
      });
      return json(res, result.ok ? 200 : 400, JSON.stringify(result.ok ? { data: result.page } : { error: 'Invalid cursor' }));
    }
    if (req.method === 'POST' && url.pathname === '/v1/decks/details') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const { ids } = JSON.parse(Buffer.concat(chunks).toString()) as { ids: string[] };
        deckDetails(store, ids, lookupFor).then(
          (data) => json(res, 200, JSON.stringify({ data })),
          (error: Error) => json(res, 500, JSON.stringify({ error: error.message })),
        );
      });
      return;
    }
    json(res, 404, '{"error":"Not found"}');
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, '127.0.0.1', () => process.send?.('ready'));
}

if (process.argv[2] === '--bare-server') {
  const [port, dbFile, snapshotsDir] = process.argv.slice(3);
  await bareServer(Number(port), dbFile!, snapshotsDir!);
} else {
  await main();
}

// ---------------------------------------------------------------------------------------------
// The benchmark
// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const seconds = Number(args[args.indexOf('--seconds') + 1] || 0) || 8;
  const fresh = args.includes('--fresh');
  const CONNECTIONS = 50;
  const DECKS = 1_000_000;
  const SEED = 20_261_122;
  const DEEP_PAGES = 2_000;
  const LIMIT = 50;
  const SAMPLES = 2_000;

  const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-decks-'));
  const children: ChildProcess[] = [];
  process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));

  ensureWrk();
  console.log(`snapdeck deck benchmark — ${new Date().toISOString()}, node ${process.version}, wrk ${CONNECTIONS} connections, ${seconds} s per run, ${PINNING}\n`);

  // 1. The million-deck database, cached between runs.
  const version = sha256Hex(JSON.stringify({ DECKS, SEED, SYNTHETIC_TEMPLATES, schema: MIGRATIONS.map((m) => [m.version, m.sql]) })).slice(0, 16);
  const dbFile = join(tmpdir(), `snapdeck-bench-decks-${DECKS}-${version}.db`);
  if (fresh) for (const suffix of ['', '-wal', '-shm']) rmSync(`${dbFile}${suffix}`, { force: true });
  if (!existsSync(dbFile)) {
    const building = `${dbFile}.building`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
    console.error(`generating and importing ${DECKS.toLocaleString('en')} decks into ${dbFile} (once; later runs reuse it) …`);
    const db = openDatabase(building);
    const result = await importDecks(db, generateDeckLines({ seed: SEED, count: DECKS, templates: SYNTHETIC_TEMPLATES }));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    renameSync(building, dbFile);
    console.error(`imported ${result.upserted.toLocaleString('en')} decks in ${(result.elapsedMs / 1000).toFixed(0)} s`);
  } else {
    console.error(`reusing ${dbFile}`);
  }
  const db = openDatabase(dbFile);
  const key = new KeyStore(db).create({ name: `bench ${new Date().toISOString()}`, scopes: ['decks:browse:public', 'decks:read:public'], quota: 1_000_000_000 }).key;
  const counts = db.prepare<[], { game_id: string; count: number }>('SELECT game_id, count FROM deck_public_counts ORDER BY game_id').all();
  const totalDecks = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM decks').get()!.n;
  db.close();
  console.log(`database: ${totalDecks.toLocaleString('en')} decks (${(statSync(dbFile).size / 1e9).toFixed(2)} GB); public per game: ${counts.map((c) => `${c.game_id} ${c.count.toLocaleString('en')}`).join(', ')}\n`);

  // 2. Snapshots of the default catalog, built by the CLI.
  const catalogDir = join(work, 'catalog');
  writeDefaultCatalog(catalogDir);
  const build = spawnSync(process.execPath, [cli, 'build', '--catalog', catalogDir, '--out', join(work, 'snapshots')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('snapdeck build failed');

  // 3. The gateway, in its own process.
  const { gateway, base } = await startGatewayProcess(cli, 18788, join(work, 'snapshots'), dbFile);
  children.push(gateway);

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { 'X-API-Key': key };
  /** One request on a kept-alive connection; resolves with status, body and milliseconds. */
  const call = (url: string, options: { method?: string; body?: string } = {}) =>
    new Promise<{ status: number; body: string; ms: number }>((resolveCall, reject) => {
      const started = performance.now();
      const req = request(url, { agent, method: options.method ?? 'GET', headers: { ...headers, ...(options.body ? { 'Content-Type': 'application/json' } : {}) } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolveCall({ status: res.statusCode ?? 0, body, ms: performance.now() - started }));
      });
      req.on('error', reject);
      req.end(options.body);
    });
  const page = async (url: string) => {
    const r = await call(url);
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.body.slice(0, 200)}`);
    return JSON.parse(r.body) as { data: { decks: Array<{ id: string }>; nextCursor: string; hasMore: boolean; totalCount: number } };
  };

  // (a) First page against a page reached after 100,000 decks.
  const listUrl = `${base}/decks/public?gameId=digimon&limit=${LIMIT}`;
  let cursor = '';
  let walked = 0;
  const walkStarted = performance.now();
  for (let i = 0; i < DEEP_PAGES; i++) {
    const body = await page(cursor ? `${listUrl}&startAfter=${encodeURIComponent(cursor)}` : listUrl);
    walked += body.data.decks.length;
    cursor = body.data.nextCursor;
    if (!body.data.hasMore) throw new Error(`the listing ended after ${walked} decks`);
  }
  const walkSeconds = (performance.now() - walkStarted) / 1000;
  const deepUrl = `${listUrl}&startAfter=${encodeURIComponent(cursor)}`;
  const deepFirst = await page(deepUrl);
  console.error(`walked ${DEEP_PAGES} pages (${walked.toLocaleString('en')} decks) in ${walkSeconds.toFixed(1)} s; the deep page starts at deck ${(walked + 1).toLocaleString('en')} of ${deepFirst.data.totalCount.toLocaleString('en')}`);
  for (let i = 0; i < 200; i++) {
    await call(listUrl);
    await call(deepUrl);
  }
  const firstMs: number[] = [];
  const deepMs: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    // Alternating, so that drift on a noisy machine affects both alike.
    firstMs.push((await call(listUrl)).ms);
    deepMs.push((await call(deepUrl)).ms);
  }
  agent.destroy();

  // (b) Throughput against the bare server.
  const ids: string[] = [];
  for (const game of ['digimon', 'gundam', 'grand-archive', 'chrono-core']) {
    const body = await page(`${base}/decks/public?gameId=${game}&limit=${LIMIT}&sort=viewCount`);
    ids.push(...body.data.decks.slice(0, game === 'digimon' || game === 'gundam' ? 13 : 12).map((d) => d.id));
  }
  const detailsBody = JSON.stringify({ ids });
  const detailsCheck = await call(`${base}/decks/details`, { method: 'POST', body: detailsBody });
  const resolved = (JSON.parse(detailsCheck.body) as { data: { decks: unknown[]; unresolved: unknown[] } }).data;
  if (detailsCheck.status !== 200 || resolved.decks.length !== 50) throw new Error(`details check failed: ${detailsCheck.status} ${detailsCheck.body.slice(0, 200)}`);
  const luaString = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const script = join(work, 'details.lua');
  await writeFile(script, `wrk.method = "POST"\nwrk.body = ${luaString(detailsBody)}\nwrk.headers["Content-Type"] = "application/json"\n`);

  const barePort = 19788;
  const bare = fork(self, ['--bare-server', String(barePort), dbFile, join(work, 'snapshots')], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(bare);
  pinServer(bare.pid);
  await once(bare, 'message');
  const bareBase = `http://127.0.0.1:${barePort}/v1`;

  interface Row { scenario: string; gateway: WrkResult; bare: WrkResult; ratio: number; target: number }
  const rows: Row[] = [];
  for (const [label, path, luaScript] of [
    [`GET /v1/decks/public?gameId=digimon&limit=${LIMIT} (first page)`, `/decks/public?gameId=digimon&limit=${LIMIT}`, undefined],
    [`GET /v1/decks/public, deep page (after ${walked.toLocaleString('en')} decks)`, `/decks/public?gameId=digimon&limit=${LIMIT}&startAfter=${encodeURIComponent(cursor)}`, undefined],
    ['POST /v1/decks/details (50 ids, four games)', '/decks/details', script],
  ] as const) {
    const options = { connections: CONNECTIONS, headers, script: luaScript };
    runWrk(`${base}${path}`, { ...options, seconds: 2 }); // warm-up
    const gatewayResult = runWrk(`${base}${path}`, { ...options, seconds });
    runWrk(`${bareBase}${path}`, { ...options, seconds: 2 });
    const bareResult = runWrk(`${bareBase}${path}`, { ...options, seconds });
    if (gatewayResult.non2xx > 0) throw new Error(`${label}: the gateway answered ${gatewayResult.non2xx} non-2xx responses`);
    if (bareResult.non2xx > 0) throw new Error(`${label}: the bare server answered ${bareResult.non2xx} non-2xx responses`);
    rows.push({ scenario: label, gateway: gatewayResult, bare: bareResult, ratio: gatewayResult.requestsPerSecond / bareResult.requestsPerSecond, target: 0.7 });
  }
  bare.kill();
  const memory = rssMB(gateway.pid!);
  gateway.kill('SIGTERM');

  const median = (xs: number[]) => quantile(xs, 0.5);
  const p99 = (xs: number[]) => quantile(xs, 0.99);
  const ratioMedian = median(deepMs) / median(firstMs);
  const ratioP99 = p99(deepMs) / p99(firstMs);
  console.log(`(a) GET /v1/decks/public latency, limit ${LIMIT}, ${SAMPLES.toLocaleString('en')} sequential keep-alive requests each (alternating)\n`);
  console.log('| page | median ms | p99 ms |');
  console.log('|---|---:|---:|');
  console.log(`| first page | ${median(firstMs).toFixed(2)} | ${p99(firstMs).toFixed(2)} |`);
  console.log(`| after ${walked.toLocaleString('en')} decks (${DEEP_PAGES.toLocaleString('en')} pages of nextCursor) | ${median(deepMs).toFixed(2)} | ${p99(deepMs).toFixed(2)} |`);
  console.log(`| deep / first | ${ratioMedian.toFixed(2)}× | ${ratioP99.toFixed(2)}× |`);
  console.log(`\ntarget deep ≤ 1.5× first: median ${ratioMedian <= 1.5 ? 'ok' : 'MISSED'}, p99 ${ratioP99 <= 1.5 ? 'ok' : 'MISSED'}\n`);

  console.log(`(b) throughput, wrk keep-alive ${CONNECTIONS} connections, ${seconds} s, gateway vs bare node:http with the same DeckStore calls\n`);
  console.log('| scenario | gateway req/s | gateway p50 / p99 ms | bare req/s | bare p50 / p99 ms | ratio | target |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(
      `| ${r.scenario} | ${r.gateway.requestsPerSecond.toFixed(0)} | ${r.gateway.p50Ms.toFixed(1)} / ${r.gateway.p99Ms.toFixed(1)} | ${r.bare.requestsPerSecond.toFixed(0)} | ${r.bare.p50Ms.toFixed(1)} / ${r.bare.p99Ms.toFixed(1)} | ${r.ratio.toFixed(2)}× | ≥ ${r.target}× ${r.ratio >= r.target ? 'ok' : 'MISSED'} |`,
    );
  }
  console.log(`\ngateway RSS after the load: ${memory.rss.toFixed(0)} MB (peak ${memory.peak.toFixed(0)} MB)`);

  await rm(work, { recursive: true, force: true });
  process.exit(0);
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}


