/**
 * Card-serving benchmark. Prints, from one run on this machine:
 *   - requests/s and MB/s of the gateway serving a hitsPerPage=100 page and a hitsPerPage=1000 page
 *     (keep-alive, 50 connections, valid key, identity and brotli), and of a hitsPerPage that is not
 *     pre-rendered, each against a bare node:http server sending the same bytes from memory: the
 *     gateway's response as captured (status, headers, body; the ratio the targets are about), and
 *     for reference the body with only Content-Type and Content-Encoding, and the framework floor:
 *     Hono on @hono/node-server answering with the same response and doing nothing else
 *     (lib/hono-floor-server.ts), which bounds what the gateway can reach;
 *   - `snapdeck build` of a 100,000-card generated catalog: seconds and peak RSS;
 *   - gateway RSS serving the default catalog, after the load;
 *   - page latency from a local folder and from S3 (moto, started here), cold and warm cache
 *     (lib/storage-latency.ts), last.
 *
 * Single runs vary by ±30 % on this machine, so each server is measured in several rounds that
 * alternate between them (gateway, bare, body only, floor, gateway, …), and the median run of each
 * is reported.
 *
 * Usage: npm run bench:cards [-- --seconds 5 --rounds 3 --skip-build --skip-s3]
 *        npm run bench:cards -- --s3 [--s3-pages 200]   (the storage latency part alone)
 */
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { generateCatalog, writeDefaultCatalog } from '../generate-catalog.ts';
import { runStorageLatencyBench } from './lib/storage-latency.ts';
import { rssMB, startGatewayProcess } from './lib/process.ts';
import { PINNING, ensureWrk, pinServer, runWrk, type WrkResult } from './lib/wrk.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'packages', 'cli', 'bin', 'snapdeck.js');
const args = process.argv.slice(2);
const seconds = Number(args.includes('--seconds') ? args[args.indexOf('--seconds') + 1] : 5) || 5;
const rounds = Number(args.includes('--rounds') ? args[args.indexOf('--rounds') + 1] : 3) || 3;
const skipBuild = args.includes('--skip-build');
const s3Only = args.includes('--s3');
const skipS3 = args.includes('--skip-s3');
const s3Pages = Number(args.includes('--s3-pages') ? args[args.indexOf('--s3-pages') + 1] : 200) || 200;
const CONNECTIONS = 50;

const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-'));
const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));

function run(command: string, argv: string[], env: Record<string, string> = {}): void {
  const result = spawnSync(command, argv, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } });
  if (result.status !== 0) throw new Error(`${command} ${argv.join(' ')} failed`);
}



if (s3Only) {
  console.log(`snapdeck storage latency benchmark — ${new Date().toISOString()}, node ${process.version}`);
  await runStorageLatencyBench({ cli, work, pages: s3Pages, children });
  await rm(work, { recursive: true, force: true });
  process.exit(0);
}

ensureWrk();
console.log(`snapdeck card benchmark — ${new Date().toISOString()}, node ${process.version}, wrk ${CONNECTIONS} connections, median of ${rounds} alternating ${seconds}-s runs per server, ${PINNING}\n`);

// 1. The default catalog, built to a fresh folder, served by `snapdeck serve` in its own process.
const catalogDir = join(work, 'catalog');
await writeDefaultCatalog(catalogDir);
run(process.execPath, [cli, 'build', '--catalog', catalogDir, '--out', join(work, 'snapshots')]);
const dbFile = join(work, 'bench.db');
const db = openDatabase(dbFile);
const key = new KeyStore(db).create({ name: 'bench', quota: 1_000_000_000 }).key;
db.close();

const { gateway, base } = await startGatewayProcess(cli, 18787, join(work, 'snapshots'), dbFile);
children.push(gateway);

/** The URL of the second page (reached by cursor, like a real walk) for a hitsPerPage. */
async function secondPage(hitsPerPage: number): Promise<string> {
  const first = JSON.parse((await responseOf(`${base}/games/digimon/cards?hitsPerPage=${hitsPerPage}`, 'identity')).body.toString('utf8')) as { data: { cursor: string } };
  return `${base}/games/digimon/cards?hitsPerPage=${hitsPerPage}&cursor=${encodeURIComponent(first.data.cursor)}`;
}

/** Headers node:http adds itself: not part of what the baseline is given. */
const ADDED_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** The gateway's response to `url`: body bytes as sent, and the headers it chose. */
async function responseOf(url: string, encoding: string): Promise<{ body: Buffer; headers: Record<string, string> }> {
  // node:http, not fetch: fetch would decode the body. A new connection each time (agent: false):
  // wrk runs block this process for minutes, so a pooled keep-alive connection could be one the
  // server has closed meanwhile.
  const { request } = await import('node:http');
  return new Promise((resolveResponse, reject) => {
    request(url, { agent: false, headers: { 'X-API-Key': key, 'Accept-Encoding': encoding } }, (res) => {
      const chunks: Buffer[] = [];
      const headers: Record<string, string> = {};
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        if (!ADDED_BY_NODE.has(res.rawHeaders[i]!.toLowerCase())) headers[res.rawHeaders[i]!] = res.rawHeaders[i + 1]!;
      }
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolveResponse({ body: Buffer.concat(chunks), headers }));
    }).on('error', reject).end();
  });
}

/** A baseline server (lib/bare-server.ts, lib/hono-floor-server.ts) on `port`, pinned like the gateway, once it listens. */
async function startBaseline(script: string, port: number, bodyFile: string, headers: Record<string, string>): Promise<ChildProcess> {
  const headersFile = `${bodyFile}.${port}.headers.json`;
  await writeFile(headersFile, JSON.stringify(headers));
  const child = fork(join(root, 'scripts', 'bench', 'lib', script), [String(port), bodyFile, headersFile], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(child);
  pinServer(child.pid);
  await once(child, 'message');
  return child;
}

/**
 * wrk against each of `urls`: a 2-second warm-up each, then `rounds` rounds of one run per URL in
 * turn; for each URL, its median run by requests/s (with the non-2xx count of all its runs).
 */
function measureAlternating(urls: string[], headers: Record<string, string>): WrkResult[] {
  for (const url of urls) runWrk(url, { connections: CONNECTIONS, seconds: 2, headers });
  const runs = urls.map((): WrkResult[] => []);
  for (let round = 0; round < rounds; round++) {
    urls.forEach((url, i) => runs[i]!.push(runWrk(url, { connections: CONNECTIONS, seconds, headers })));
  }
  return runs.map((results) => {
    const median = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(results.length / 2)]!;
    return { ...median, non2xx: results.reduce((sum, run) => sum + run.non2xx, 0) }; // every run must be 2xx
  });
}

interface Row { scenario: string; gateway: WrkResult; bare: WrkResult; bodyOnly: WrkResult; floor: WrkResult; ratio: number; target: number }
const rows: Row[] = [];
let barePort = 19787;

for (const [label, hitsPerPage, encoding, target] of [
  ['hitsPerPage=100, identity', 100, 'identity', 0.8],
  ['hitsPerPage=100, brotli', 100, 'br', 0.8],
  ['hitsPerPage=1000, identity', 1000, 'identity', 0.8],
  ['hitsPerPage=1000, brotli', 1000, 'br', 0.8],
  ['hitsPerPage=250 (not pre-rendered), identity', 250, 'identity', 0.6],
] as const) {
  const url = await secondPage(hitsPerPage);
  const { body, headers: gatewayHeaders } = await responseOf(url, encoding);
  const bodyFile = join(work, `body-${hitsPerPage}-${encoding}`);
  await writeFile(bodyFile, body);
  const minimal: Record<string, string> = { 'Content-Type': 'application/json' };
  if (encoding !== 'identity') minimal['Content-Encoding'] = encoding;
  const [barePortNow, bodyOnlyPort, floorPort] = [barePort++, barePort++, barePort++];
  const baselines = [
    await startBaseline('bare-server.ts', barePortNow, bodyFile, gatewayHeaders),
    await startBaseline('bare-server.ts', bodyOnlyPort, bodyFile, minimal),
    await startBaseline('hono-floor-server.ts', floorPort, bodyFile, gatewayHeaders),
  ];
  const headers = { 'X-API-Key': key, 'Accept-Encoding': encoding };
  const [gatewayResult, bareResult, bodyOnlyResult, floorResult] = measureAlternating(
    [url, `http://127.0.0.1:${barePortNow}/`, `http://127.0.0.1:${bodyOnlyPort}/`, url.replace(/^http:\/\/[^/]+\/v1/, `http://127.0.0.1:${floorPort}/v1`)],
    headers,
  ) as [WrkResult, WrkResult, WrkResult, WrkResult];
  for (const child of baselines) child.kill();
  if (gatewayResult.non2xx > 0) throw new Error(`${label}: the gateway answered ${gatewayResult.non2xx} non-2xx responses`);
  rows.push({
    scenario: `${label} (${(body.length / 1024).toFixed(0)} KiB)`,
    gateway: gatewayResult,
    bare: bareResult,
    bodyOnly: bodyOnlyResult,
    floor: floorResult,
    ratio: gatewayResult.requestsPerSecond / bareResult.requestsPerSecond,
    target,
  });
}

const gatewayMemory = rssMB(gateway.pid!);
gateway.kill('SIGTERM');

/** Rounded down, so a ratio shown as meeting its target does. */
const floor2 = (ratio: number): string => (Math.floor(ratio * 100) / 100).toFixed(2);
console.log('| scenario | gateway req/s | gateway MB/s | bare req/s | bare MB/s | ratio | target | bare, body only: req/s (gateway ratio) | Hono floor: req/s (its ratio to bare) |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.scenario} | ${r.gateway.requestsPerSecond.toFixed(0)} | ${r.gateway.megabytesPerSecond.toFixed(0)} | ${r.bare.requestsPerSecond.toFixed(0)} | ${r.bare.megabytesPerSecond.toFixed(0)} | ${floor2(r.ratio)}× | ≥ ${r.target}× ${r.ratio >= r.target ? 'ok' : 'MISSED'} | ${r.bodyOnly.requestsPerSecond.toFixed(0)} (${floor2(r.gateway.requestsPerSecond / r.bodyOnly.requestsPerSecond)}×) | ${r.floor.requestsPerSecond.toFixed(0)} (${floor2(r.floor.requestsPerSecond / r.bare.requestsPerSecond)}×) |`,
  );
}
console.log("bare: the gateway's response (status, headers, body) sent from memory by node:http; body only: the same body with Content-Type (and Content-Encoding) alone; Hono floor: the gateway's response sent by a one-route Hono app doing nothing else.");
console.log(`\ngateway RSS after the load, default catalog (${'all four games'}): ${gatewayMemory.rss.toFixed(0)} MB (peak ${gatewayMemory.peak.toFixed(0)} MB); target < 300 MB ${gatewayMemory.peak < 300 ? 'ok' : 'MISSED'}`);

// 2. Build of a 100,000-card catalog, in its own process, through the CLI.
if (!skipBuild) {
  const bigDir = join(work, 'big');
  const file = join(bigDir, 'digimon.jsonl');
  await (await import('node:fs/promises')).mkdir(bigDir, { recursive: true });
  const out = createWriteStream(file);
  for (const card of generateCatalog({ game: 'digimon', count: 100_000, seed: 42 })) {
    if (!out.write(`${JSON.stringify(card)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  const size = (await readFile(file)).length;
  const started = performance.now();
  const result = spawnSync('/bin/sh', ['-c', `node ${JSON.stringify(cli)} build --catalog ${JSON.stringify(bigDir)} --out ${JSON.stringify(join(work, 'big-snapshots'))} & pid=$!; peak=0; while kill -0 $pid 2>/dev/null; do r=$(awk '/VmHWM/{print $2}' /proc/$pid/status 2>/dev/null); [ -n "$r" ] && peak=$r; sleep 0.2; done; wait $pid; echo "peak_kb=$peak"`], { encoding: 'utf8' });
  const elapsed = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`100k build failed: ${result.stderr}`);
  const peakMB = Number(/peak_kb=(\d+)/.exec(result.stdout)?.[1] ?? NaN) / 1024;
  console.log(`\nsnapdeck build, 100,000 generated digimon cards (${(size / 1e6).toFixed(0)} MB of JSONL): ${elapsed.toFixed(1)} s (target < 60 s ${elapsed < 60 ? 'ok' : 'MISSED'}), peak RSS ${peakMB.toFixed(0)} MB (target < 1024 MB ${peakMB < 1024 ? 'ok' : 'MISSED'})`);
}

// 3. Page latency from a local folder and from S3 (moto), cold and warm cache.
if (!skipS3) await runStorageLatencyBench({ cli, work, pages: s3Pages, children });

await rm(work, { recursive: true, force: true });
process.exit(0);
