/**
 * Page latency of `snapdeck serve` by storage driver: the same catalog built (through the CLI) to
 * a local folder and to S3 (moto, a real S3-compatible server on this machine, started here), each
 * served by a fresh gateway process. For each: `pages` distinct hitsPerPage=100 pages fetched one
 * after the other, each for the first time (cold: the gateway reads it from storage), then the
 * same pages again in the same order (warm: from the gateway's memory). Brotli, keep-alive, one
 * connection; the time is to the last byte of the body. The version's index is loaded before the
 * cold pass (a hitsPerPage=1 request), so the cold pass measures page reads only.
 *
 * moto runs on this machine: the cold S3 figures show the cost of the S3 protocol (HTTP, SigV4,
 * moto's own work per request), not network distance to a real region.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { DEFAULT_SEED, defaultCount, generateCatalog, writeCatalogFile, writeDefaultCatalog } from '../../generate-catalog.ts';
import { startS3Server } from '../../../test/helpers/s3-server.ts';

export interface StorageLatencyOptions {
  /** packages/cli/bin/snapdeck.js */
  cli: string;
  /** A scratch folder (the caller removes it). */
  work: string;
  /** Distinct hitsPerPage=100 pages per pass. Default 200. */
  pages?: number;
  /** Child processes are added here too, so the caller's exit hook kills them. */
  children?: ChildProcess[];
}

interface Pass {
  median: number;
  p99: number;
}

interface Row {
  store: string;
  build: number;
  cold: Pass;
  warm: Pass;
}

const GAME = 'digimon';
const HITS_PER_PAGE = 100;

/** Nearest-rank percentile of a sorted list. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summary(samples: number[]): Pass {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** One GET; the raw (brotli) body, its status and the time to its last byte. */
function timedGet(url: string, agent: Agent, key: string): Promise<{ status: number; body: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    request(url, { agent, headers: { 'X-API-Key': key, 'Accept-Encoding': 'br' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - started }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

function decode(body: Buffer): { data: { cursor: string | null } } {
  return JSON.parse(brotliDecompressSync(body).toString('utf8')) as { data: { cursor: string | null } };
}

/** Starts `snapdeck serve --port 0`; resolves with its /v1 URL once it listens. */
function serve(cli: string, snapshots: string, db: string, env: Record<string, string>, children?: ChildProcess[]): Promise<{ base: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--snapshots', snapshots, '--db', db], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...env, LOG_LEVEL: 'silent', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  children?.push(child);
  return new Promise((resolve, reject) => {
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`snapdeck serve did not start:\n${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+\/v1)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ base: match[1]!, child });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`snapdeck serve exited with ${code}:\n${stderr}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function measure(base: string, key: string, pages: number): Promise<{ cold: Pass; warm: Pass }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    // Loads the version (manifest, index, listing) without touching any hitsPerPage=100 page.
    const load = await timedGet(`${base}/games/${GAME}/cards?hitsPerPage=1`, agent, key);
    if (load.status !== 200) throw new Error(`${base}: the first request answered ${load.status}`);
    const urls: string[] = [];
    const cold: number[] = [];
    let url: string | null = `${base}/games/${GAME}/cards?hitsPerPage=${HITS_PER_PAGE}`;
    while (url !== null && urls.length < pages) {
      const response = await timedGet(url, agent, key);
      if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
      urls.push(url);
      cold.push(response.ms);
      const cursor = decode(response.body).data.cursor;
      url = cursor === null ? null : `${base}/games/${GAME}/cards?hitsPerPage=${HITS_PER_PAGE}&cursor=${encodeURIComponent(cursor)}`;
    }
    if (urls.length < pages) throw new Error(`only ${urls.length} pages of ${HITS_PER_PAGE} in ${GAME}, ${pages} wanted`);
    const warm: number[] = [];
    for (const again of urls) {
      const response = await timedGet(again, agent, key);
      if (response.status !== 200) throw new Error(`${again} answered ${response.status}`);
      warm.push(response.ms);
    }
    return { cold: summary(cold), warm: summary(warm) };
  } finally {
    agent.destroy();
  }
}

/** Builds, serves and measures from a folder and from S3; prints a markdown table. */
export async function runStorageLatencyBench(options: StorageLatencyOptions): Promise<void> {
  const pages = options.pages ?? 200;
  const work = join(options.work, 'storage-latency');
  // The default catalog, digimon made large enough for `pages` distinct pages of 100.
  const catalog = join(work, 'catalog');
  writeDefaultCatalog(catalog);
  const digimonCount = Math.max(defaultCount(GAME), pages * HITS_PER_PAGE + 1);
  if (digimonCount > defaultCount(GAME)) writeCatalogFile(join(catalog, `${GAME}.jsonl`), GAME, generateCatalog({ game: GAME, count: digimonCount, seed: DEFAULT_SEED }));

  console.log(`\nstarting moto (python3 -m moto.server) for the S3 measurements …`);
  const s3 = await startS3Server({ bucket: 'snapdeck-bench' });
  try {
    const db = join(work, 'latency.db');
    const store = openDatabase(db);
    const key = new KeyStore(store).create({ name: 'bench-latency', quota: 1_000_000_000 }).key;
    store.close();

    const rows: Row[] = [];
    for (const [name, snapshots, env] of [
      ['local folder (FsDriver)', join(work, 'snapshots'), {}],
      ['S3 on moto (S3Driver)', s3.newLocation('bench'), s3.env],
    ] as const) {
      const started = performance.now();
      const built = spawnSync(process.execPath, [options.cli, 'build', '--catalog', catalog, '--out', snapshots], {
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
        env: { ...process.env, ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
      if (built.status !== 0) throw new Error(`snapdeck build --out ${snapshots} failed:\n${built.stderr}`);
      const build = (performance.now() - started) / 1000;
      const { base, child } = await serve(options.cli, snapshots, db, env, options.children);
      try {
        rows.push({ store: name, build, ...(await measure(base, key, pages)) });
      } finally {
        await stop(child);
      }
    }

    console.log(`\nPage latency by storage driver: ${pages} distinct hitsPerPage=${HITS_PER_PAGE} ${GAME} pages (${digimonCount} cards; other games default), brotli, one keep-alive connection, sequential; cold = first read of each page (from storage), warm = the same pages again (from the gateway's memory). moto runs on this machine, so S3 here means the protocol's cost, not a real region's distance; figures from one run on a shared machine are noisy.\n`);
    console.log('| store | build (CLI, s) | cold median ms | cold p99 ms | warm median ms | warm p99 ms |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(`| ${r.store} | ${r.build.toFixed(1)} | ${r.cold.median.toFixed(2)} | ${r.cold.p99.toFixed(2)} | ${r.warm.median.toFixed(2)} | ${r.warm.p99.toFixed(2)} |`);
    }
  } finally {
    await s3.stop();
  }
}
