/**
 * What bench:hotpath measures against: the default catalog built into snapshots, a database with
 * the demo decks and a key with every scope, `snapdeck serve` started as an operator would (access
 * log at info on stdout, metrics, in-process or Redis quota), and the gateway's own answers
 * captured byte for byte for the bare node:http baseline (lib/bare-server.ts) to replay.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, truncateSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeDefaultCatalog } from '../../generate-catalog.ts';
import { seedDemoDecks } from '../../seed-demo-decks.ts';
import { waitForHttp } from './process.ts';
import { pinServer } from './wrk.ts';

export interface Fixture {
  snapshots: string;
  db: string;
  key: string;
  /** Public digimon decks of the demo set (at least 10). */
  deckIds: string[];
}

/** Catalog, snapshots (built by the CLI), demo decks and a key, under `work`. */
export async function prepareFixture(cli: string, work: string): Promise<Fixture> {
  const catalog = join(work, 'catalog');
  writeDefaultCatalog(catalog);
  const snapshots = join(work, 'snapshots');
  const build = spawnSync(process.execPath, [cli, 'build', '--catalog', catalog, '--out', snapshots], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('snapdeck build failed');
  const dbFile = join(work, 'bench.db');
  const db = openDatabase(dbFile);
  await seedDemoDecks({ db, catalogDir: catalog });
  const key = new KeyStore(db).create({ name: 'bench', scopes: ['decks:browse:public', 'decks:read:public'], quota: 1_000_000_000 }).key;
  const deckIds = db.prepare<[], { id: string }>("SELECT id FROM decks WHERE visibility = 'public' AND game_id = 'digimon' ORDER BY id LIMIT 10").all().map((row) => row.id);
  db.close();
  if (deckIds.length < 10) throw new Error('the demo decks hold fewer than 10 public digimon decks');
  return { snapshots, db: dbFile, key, deckIds };
}

export interface LoggedGateway {
  process: ChildProcess;
  base: string;
  /** The file its stdout (the access log) goes to, opened for appending. */
  logFile: string;
  /** Lines in the log file now; then empties it (the gateway appends, so it writes at the start again). */
  takeLines(): number;
}

/**
 * `snapdeck serve` with its defaults (LOG_LEVEL unset: the access log at info), stdout appended
 * to a file as a process manager would capture it, pinned like every benchmarked server.
 * Quotas far above what a run spends, so that every answer is a 200.
 */
export async function startLoggedGateway(cli: string, fixture: Fixture, port: number, logFile: string, extraArgs: string[] = [], nodeArgs: string[] = []): Promise<LoggedGateway> {
  const fd = openSync(logFile, 'a');
  const env = { ...process.env };
  delete env.LOG_LEVEL;
  const child = spawn(
    process.execPath,
    [...nodeArgs, cli, 'serve', '--port', String(port), '--snapshots', fixture.snapshots, '--db', fixture.db, '--address-quota', '1000000000', ...extraArgs],
    { stdio: ['ignore', fd, 'inherit'], env },
  );
  closeSync(fd);
  pinServer(child.pid);
  const base = `http://127.0.0.1:${port}/v1`;
  await waitForHttp(`${base}/openapi.json`);
  return {
    process: child,
    base,
    logFile,
    takeLines() {
      const text = readFileSync(logFile, 'utf8');
      truncateSync(logFile, 0);
      let lines = 0;
      for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
      return lines;
    },
  };
}

/** Headers node:http adds itself: not part of what the baseline is given. */
const ADDED_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

export interface Captured {
  status: number;
  body: Buffer;
  headers: Record<string, string>;
}

/**
 * The gateway's answer to one request: status, body bytes as sent (not decoded) and the headers
 * it chose. node:http, not fetch (fetch would decode the body), on a new connection (agent:
 * false): wrk runs block this process, so a pooled connection could be one the server closed.
 */
export function capture(url: string, options: { method?: string; headers: Record<string, string>; body?: string }): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', agent: false, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      const headers: Record<string, string> = {};
      for (let i = 0; i < res.rawHeaders.length; i += 2) {
        if (!ADDED_BY_NODE.has(res.rawHeaders[i]!.toLowerCase())) headers[res.rawHeaders[i]!] = res.rawHeaders[i + 1]!;
      }
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks), headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
