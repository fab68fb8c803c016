/**
 * Purge-to-gateways delay with a slow decks download: a small published store
 * on S3 (moto, started here), two `serve --store` gateway processes with the default poll, one of
 * them reaching storage through the fault-injecting proxy (test/helpers/fault-proxy.ts) that
 * trickles the decks part out over 8 s, the other straight to moto. A local HTTP server stands in
 * for the cache: it notes when a PURGE arrives and what each gateway serves at that moment
 * (/readyz store.decksVersion, and the deck's status). Each trial makes one public deck private
 * with `snapdeck decks import --publish LOC --purge URL` (the writer straight to moto), and
 * measures: from the publish done (the command's "published store version" line) to the PURGE
 * received, and the command's total time.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SYNTHETIC_TEMPLATES, generateDeckLines } from '../../lib/deck-generator.ts';
import { CLI, startCliGateway, type CliGateway } from '../../../test/helpers/cli-gateway.ts';
import { startFaultProxy } from '../../../test/helpers/fault-proxy.ts';
import { startS3Server } from '../../../test/helpers/s3-server.ts';

export const DECKS_DOWNLOAD_MS = 8000;
const DECKS_PART = '_store/parts/decks/';
const SEED = 20_261_125;

export interface PurgeTrial {
  /** ms from the publish done (its line on stderr) to the PURGE's arrival. */
  publishToPurgeMs: number;
  /** ms from the slow gateway's decks download starting to the PURGE's arrival (null: no slowed download seen). */
  downloadToPurgeMs: number | null;
  /** ms from the command's start to its exit. */
  commandMs: number;
  exitCode: number | string;
  version: string;
  /** What each gateway served when the PURGE arrived ([0]: the slow one). */
  served: Array<{ decksVersion: string; deck: number }>;
  /** Both gateways served the new decks (decksVersion = the published version, the deck 404) when the PURGE arrived. */
  bothServed: boolean;
}

interface PurgeSeen {
  at: number;
  served: PurgeTrial['served'];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function storeBlock(gateway: CliGateway): Promise<{ decksVersion: string }> {
  try {
    return ((await (await fetch(`${gateway.url}/readyz`)).json()) as { store: { decksVersion: string } }).store;
  } catch {
    return { decksVersion: '' };
  }
}

async function deckStatus(gateway: CliGateway, id: string): Promise<number> {
  try {
    const response = await fetch(`${gateway.url}/v1/decks/${id}`);
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

async function until(check: () => Promise<boolean>, what: string, limitMs = 120_000): Promise<void> {
  for (const started = Date.now(); !(await check()); await sleep(50)) {
    if (Date.now() - started > limitMs) throw new Error(`${what} within ${limitMs / 1000} s`);
  }
}

/** The CLI to completion, noting when it printed its publish line. */
function runWriter(args: string[], env: Record<string, string>): Promise<{ code: number | string; stderr: string; publishedAt: number | null; startedAt: number; endedAt: number }> {
  return new Promise((resolve) => {
    const startedAt = Date.now();
    let publishedAt: number | null = null;
    let stderr = '';
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env, LOG_LEVEL: 'silent' } });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (publishedAt === null && stderr.includes('published store version')) publishedAt = Date.now();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, stderr, publishedAt, startedAt, endedAt: Date.now() });
    });
  });
}

export async function purgeAfterSlowDownload(options: { work: string; snapshots: string; trials: number }): Promise<PurgeTrial[]> {
  const s3 = await startS3Server();
  const proxy = await startFaultProxy(s3);
  const location = s3.newLocation('bench-purge');
  const writerDb = join(options.work, 'purge-writer.db');
  const decks = [...generateDeckLines({ seed: SEED, count: 200, templates: SYNTHETIC_TEMPLATES })].map((line) => JSON.parse(line) as { id: string; visibility: string });
  const targets = decks.slice(0, options.trials).map((deck) => ({ ...deck, visibility: 'public' }));
  const importFile = async (name: string, lines: object[]) => {
    const file = join(options.work, name);
    await writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    return file;
  };
  const writer = (file: string, extra: string[] = []) => runWriter(['decks', 'import', file, '--db', writerDb, '--publish', location, ...extra], s3.env);
  const gateways: CliGateway[] = [];
  const purges: PurgeSeen[] = [];
  let watched = '';
  let cache: Server | undefined;
  try {
    const first = await writer(await importFile('purge-first.jsonl', [...targets, ...decks.slice(options.trials)]));
    if (first.code !== 0) throw new Error(`the first import failed:\n${first.stderr}`);
    const serve = (name: string, env: Record<string, string>) => startCliGateway(['--snapshots', options.snapshots, '--store', location, '--cache-dir', join(options.work, name)], { env, timeoutMs: 60_000 });
    gateways.push(...(await Promise.all([serve('purge-cache-slow', proxy.env), serve('purge-cache-fast', s3.env)])));
    await until(async () => (await Promise.all(gateways.map((g) => deckStatus(g, targets[0]!.id)))).every((s) => s === 200), 'the gateways did not serve the first import');

    // The cache's stand-in: the arrival time first, then what each gateway serves at that moment.
    cache = createServer((req, res) => {
      const at = Date.now();
      req.resume();
      void Promise.all(gateways.map(async (g) => ({ decksVersion: (await storeBlock(g)).decksVersion, deck: await deckStatus(g, watched) }))).then((served) => {
        if (req.method === 'PURGE') purges.push({ at, served });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => cache!.listen(0, '127.0.0.1', resolve));
    const purgeUrl = `http://127.0.0.1:${(cache.address() as { port: number }).port}/`;

    const trials: PurgeTrial[] = [];
    for (const [i, target] of targets.entries()) {
      watched = target.id;
      purges.length = 0;
      const file = await importFile(`purge-trial-${i}.jsonl`, [{ ...target, visibility: 'private' }]);
      const slowFrom = Date.now();
      proxy.slow(DECKS_PART, DECKS_DOWNLOAD_MS);
      const run = await writer(file, ['--purge', purgeUrl]);
      proxy.clear();
      const version = /published store version (\S+)/.exec(run.stderr)?.[1];
      const purge = purges[0];
      if (!version || run.publishedAt === null || !purge) throw new Error(`trial ${i + 1}: no publish or no PURGE (exit ${run.code}):\n${run.stderr}`);
      const download = proxy.requests.find((r) => r.outcome === 'slowed' && r.path.includes(DECKS_PART) && r.at >= slowFrom);
      trials.push({
        publishToPurgeMs: purge.at - run.publishedAt,
        downloadToPurgeMs: download ? purge.at - download.at : null,
        commandMs: run.endedAt - run.startedAt,
        exitCode: run.code,
        version,
        served: purge.served,
        bothServed: purge.served.every((s) => s.decksVersion === version && s.deck === 404),
      });
      // The next trial starts from both gateways serving this one's version.
      await until(async () => (await Promise.all(gateways.map(storeBlock))).every((s) => s.decksVersion === version), `trial ${i + 1}: the gateways did not catch up`);
    }
    return trials;
  } finally {
    cache?.close();
    await Promise.all(gateways.map((g) => g.stop()));
    await proxy.stop();
    await s3.stop();
  }
}
