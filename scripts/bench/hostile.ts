/**
 * Hostile clients against a real gateway (the hostile-input targets; decisions.md: headers within 10 s,
 * a whole request within 30 s, else 408 and the connection closes). Prints, from one run:
 *   - how long a client sending one header byte every 2 s holds its socket (3 such clients);
 *   - how long a client trickling a POST body, one byte a second, holds its socket (3 clients);
 *   - 10,000 connections that send nothing: how long until the gateway has closed each;
 *   - meanwhile, a second client (its own process) sending GET /v1/games with a key at a steady
 *     rate on a new connection each: how many are answered 200, and their p50 / p99.
 * then the table of hostile-client targets. The rows this script does not measure (5xx over the hostile
 * corpus, path spellings through Varnish, secrets in outputs) keep their place in it: measure one
 * and put its row in `OTHER_ROWS` below.
 *
 * The gateway is `snapdeck serve` in its own process (pinned to core 0 when taskset exists,
 * LOG_LEVEL=silent, default options: --max-connections is the open-file limit less 256) over
 * snapshots of the gundam catalog in data/catalog. 10,000 sockets need as many descriptors in this
 * process and in the gateway: when the soft open-file limit is below `--flood` + 1,000 and the hard
 * limit allows, the script re-runs itself under `ulimit -n`; otherwise it says what to run
 * (`ulimit -n 20000` in the shell first; as root, or raise the hard limit in
 * /etc/security/limits.conf or the service's LimitNOFILE=).
 *
 * The attackers run on the other core (this process and the second client pinned to core 1, as
 * wrk is in the other benchmarks): a real flood comes from other machines, and its sender's CPU
 * is not the gateway's. HOSTILE_DEBUG=1 prints every request of the second client over 50 ms,
 * with when it was sent.
 *
 * Usage: npm run bench:hostile [-- --flood 10000 --rate 20 --cli path/to/snapdeck.js --skip-slow]
 * (--cli runs another checkout's CLI, for before/after figures; its node_modules must resolve.)
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { freePort, startGatewayProcess } from './lib/process.ts';
import { printTargets, type TargetRow } from './lib/targets.ts';
import { PINNING, pinClient } from './lib/wrk.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const self = fileURLToPath(import.meta.url);

/** Targets measured elsewhere (by tests); their rows keep their place in the table. */
const OTHER_ROWS: TargetRow[] = [
  { figure: '5xx answers over the hostile-input test corpus', target: '0', measured: null, source: 'test/hostile-input.test.ts, test/generated' },
  { figure: 'path spellings that reach a VCL-protected path through Varnish', target: '0', measured: null, source: 'the VCL tests' },
  { figure: 'secrets in stdout, stderr, logs, metrics, error bodies over the whole suite', target: '0', measured: null, source: 'the suite-wide output scan' },
];

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

function softAndHardFileLimit(): { soft: number; hard: number } {
  const line = /^Max open files\s+(\S+)\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  const value = (v: string | undefined) => (v === 'unlimited' ? Infinity : Number(v));
  return { soft: value(line?.[1]), hard: value(line?.[2]) };
}

/** Re-runs this script under a higher `ulimit -n` when needed and allowed; false when it did. */
function ensureFileLimit(needed: number): boolean {
  const { soft, hard } = softAndHardFileLimit();
  if (soft >= needed) return true;
  if (hard < needed || process.env.SNAPDECK_BENCH_RAISED) {
    console.error(`bench:hostile needs ${needed} open files (soft limit ${soft}, hard ${hard}). Run \`ulimit -n ${needed}\` first (raising the hard limit needs root: /etc/security/limits.conf, or LimitNOFILE= for a service), or pass a smaller --flood.`);
    process.exit(1);
  }
  const target = Number.isFinite(hard) ? Math.min(hard, Math.max(needed, 20_000)) : Math.max(needed, 20_000);
  console.error(`raising the open-file limit from ${soft} to ${target} (ulimit -n) and running again`);
  const child = spawn('sh', ['-c', `ulimit -n ${target} && exec "$0" "$@"`, process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, SNAPDECK_BENCH_RAISED: '1' },
  });
  child.once('exit', (code) => process.exit(code ?? 1));
  return false;
}

function commitOf(file: string): string {
  try {
    return `git ${execFileSync('git', ['-C', dirname(file), 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()}`;
  } catch {
    return 'not a git checkout';
  }
}

interface Held {
  /** Connect to close, ms; NaN when still open at the deadline. */
  heldMs: number;
  statusLine: string;
}

/** One raw connection: `start` writes to it; resolves when the gateway closes it (or at `capMs`). */
function hold(port: number, start: (socket: Socket) => void, capMs: number): Promise<Held> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let connectedAt = 0;
    let text = '';
    socket.once('connect', () => {
      connectedAt = performance.now();
      start(socket);
    });
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    const cap = setTimeout(() => {
      socket.destroy();
      done({ heldMs: NaN, statusLine: `still open after ${seconds(capMs)}` });
    }, capMs);
    socket.once('close', () => {
      clearTimeout(cap);
      done({ heldMs: performance.now() - connectedAt, statusLine: text.split('\r\n')[0] || '(closed without an answer)' });
    });
  });
}

function trickle(socket: Socket, bytes: string, everyMs: number): void {
  let at = 0;
  const timer = setInterval(() => (socket.destroyed || at >= bytes.length ? clearInterval(timer) : socket.write(bytes[at++]!)), everyMs);
  socket.once('close', () => clearInterval(timer));
}

function summarise(results: Held[]): { worst: number; text: string } {
  const worst = Math.max(...results.map((r) => (Number.isNaN(r.heldMs) ? Infinity : r.heldMs)));
  const statuses = [...new Set(results.map((r) => r.statusLine))].join('; ');
  return { worst, text: `${Number.isFinite(worst) ? seconds(worst) : 'not closed'} (worst of ${results.length}; ${statuses})` };
}

/** `count` connections that send nothing: how long until the gateway has closed each. */
async function flood(port: number, count: number, capMs: number): Promise<{ closedMs: number[]; stillOpen: number; openedInMs: number; failedToOpen: number }> {
  const closedMs: number[] = [];
  let failedToOpen = 0;
  const sockets: Socket[] = [];
  const allClosed: Promise<void>[] = [];
  const started = performance.now();
  for (let batch = 0; batch < count; batch += 500) {
    const opened = Array.from({ length: Math.min(500, count - batch) }, () =>
      new Promise<void>((ready) => {
        const socket = connect(port, '127.0.0.1');
        sockets.push(socket);
        let connectedAt = NaN;
        socket.once('connect', () => {
          connectedAt = performance.now();
          ready();
        });
        socket.on('error', () => {});
        // Read whatever comes, so that the gateway's FIN is seen even after an answer.
        socket.resume();
        allClosed.push(
          new Promise<void>((closed) =>
            socket.once('close', () => {
              if (Number.isNaN(connectedAt)) failedToOpen++;
              else closedMs.push(performance.now() - connectedAt);
              ready();
              closed();
            }),
          ),
        );
      }),
    );
    await Promise.all(opened);
  }
  const openedInMs = performance.now() - started;
  await Promise.race([Promise.all(allClosed), new Promise((r) => setTimeout(r, capMs))]);
  const stillOpen = sockets.filter((s) => !s.destroyed).length;
  for (const s of sockets) s.destroy();
  return { closedMs, stillOpen, openedInMs, failedToOpen };
}

/** The second client, in a process of its own: GET /v1/games at `rate`/s, a new connection each, until told to stop. */
async function normalClient(base: string, key: string, rate: number): Promise<void> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let sent = 0;
  let stopping = false;
  const pending = new Set<Promise<void>>();
  process.on('message', () => (stopping = true));
  const startedAt = performance.now();
  const one = () =>
    new Promise<void>((done) => {
      const t0 = performance.now();
      const req = request(`${base}/games`, { agent: false, headers: { 'X-API-Key': key }, timeout: 10_000 }, (res) => {
        res.resume();
        res.once('end', () => {
          if (process.env.HOSTILE_DEBUG && performance.now() - t0 > 50) console.error(`slow: ${(performance.now() - t0).toFixed(0)} ms at ${((t0 - startedAt) / 1000).toFixed(2)} s`);
          if (res.statusCode === 200) latencies.push(performance.now() - t0);
          else failures.push(String(res.statusCode));
          done();
        });
      });
      req.once('timeout', () => req.destroy(new Error('no answer within 10 s')));
      req.once('error', (error: NodeJS.ErrnoException) => {
        failures.push(error.code ?? error.message);
        done();
      });
      req.end();
    });
  while (!stopping) {
    const p = one();
    sent++;
    pending.add(p);
    void p.then(() => pending.delete(p));
    const next = startedAt + (sent * 1000) / rate;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  await Promise.all(pending);
  process.send!({ sent, latencies, failures });
}

/** Header and body tricklers, 3 of each, at once: how long each holds its socket. */
async function slowClients(port: number, key: string): Promise<{ headers: ReturnType<typeof summarise>; bodies: ReturnType<typeof summarise> }> {
  console.log('slow clients: 3 trickling header bytes (one every 2 s), 3 trickling a POST body (one byte a second) …');
  const CAP_MS = 400_000;
  const headerClients = Array.from({ length: 3 }, () =>
    hold(port, (s) => {
      s.write('GET /v1/games HTTP/1.1\r\nHost: bench\r\n');
      trickle(s, `X-Slow: ${'a'.repeat(1000)}`, 2000);
    }, CAP_MS),
  );
  const body = JSON.stringify({ ids: Array.from({ length: 50 }, () => '3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b') });
  const bodyClients = Array.from({ length: 3 }, () =>
    hold(port, (s) => {
      s.write(`POST /v1/decks/details HTTP/1.1\r\nHost: bench\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      trickle(s, body, 1000);
    }, CAP_MS),
  );
  const headers = summarise(await Promise.all(headerClients));
  const bodies = summarise(await Promise.all(bodyClients));
  console.log(`  headers: ${headers.text}\n  body:    ${bodies.text}\n`);
  return { headers, bodies };
}

const BASELINE_MS = 10_000;

function startNormalClient(base: string, key: string, rate: number): { stop(): Promise<{ sent: number; latencies: number[]; failures: string[] }> } {
  const child = fork(self, ['--normal-client', base, key, String(rate)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  pinClient(child.pid);
  const report = new Promise<{ sent: number; latencies: number[]; failures: string[] }>((r) => child.once('message', (m) => r(m as never)));
  return {
    stop() {
      child.send('stop');
      return report;
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { flood: { type: 'string', default: '10000' }, rate: { type: 'string', default: '20' }, cli: { type: 'string' }, 'skip-slow': { type: 'boolean', default: false } },
  });
  const floodCount = Number(values.flood);
  const rate = Number(values.rate);
  const cli = resolve(values.cli ?? join(root, 'packages', 'cli', 'bin', 'snapdeck.js'));
  if (!ensureFileLimit(floodCount + 1000)) return;
  pinClient(process.pid);

  const dir = await mkdtemp(join(tmpdir(), 'snapdeck-bench-hostile-'));
  let gateway: Awaited<ReturnType<typeof startGatewayProcess>>['gateway'] | undefined;
  try {
    await build({ catalogDir: join(root, OPERATOR_DEFAULTS.catalogDir), storage: new FsDriver(join(dir, 'snapshots')), games: ['gundam'], hitsPerPage: [100] });
    const db = openDatabase(join(dir, 'snapdeck.db'));
    // The details scope, so that the trickled POST reaches the body (without it: 403 before the body is read).
    const key = new KeyStore(db).create({ name: 'bench-hostile', quota: 1_000_000, scopes: ['decks:read:public'] }).key;
    db.close();
    const port = await freePort();
    ({ gateway } = await startGatewayProcess(cli, port, join(dir, 'snapshots'), join(dir, 'snapdeck.db')));
    const base = `http://127.0.0.1:${port}/v1`;
    const limit = softAndHardFileLimit().soft;
    console.log(`snapdeck hostile-client benchmark — ${new Date().toISOString()}, node ${process.version}, ${PINNING}`);
    console.log(`gateway: ${cli} (${commitOf(cli)}), open-file limit ${limit}`);
    console.log('2-core machine with other work running in parallel: figures are noisy.\n');

    const skipped = { worst: NaN, text: 'skipped (--skip-slow)' };
    const { headers, bodies } = values['skip-slow'] ? { headers: skipped, bodies: skipped } : await slowClients(port, key);

    // The same client without the flood first

    // The same client without the flood first: on a shared machine its p99 is the floor the flood adds to.
    const baselineClient = startNormalClient(base, key, rate);
    await new Promise((r) => setTimeout(r, BASELINE_MS));
    const baseline = await baselineClient.stop();
    const baselineP99 = percentile([...baseline.latencies].sort((a, b) => a - b), 99);
    console.log(`second client alone for ${seconds(BASELINE_MS)}: ${baseline.latencies.length}/${baseline.sent} answered 200, p99 ${baselineP99.toFixed(1)} ms\n`);

    console.log(`flood: ${floodCount.toLocaleString('en')} connections that send nothing, and the second client at ${rate} requests/s …`);
    const client = startNormalClient(base, key, rate);
    await new Promise((r) => setTimeout(r, 1000)); // the client's own warm-up, before the flood
    const result = await flood(port, floodCount, 150_000);
    const normal = await client.stop();
    const closed = [...result.closedMs].sort((a, b) => a - b);
    const worstClose = closed.length ? closed[closed.length - 1]! : NaN;
    const latencies = [...normal.latencies].sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    const failures = [...new Set(normal.failures)].join(', ');
    console.log(`  opened in ${seconds(result.openedInMs)}; closed by the gateway: ${closed.length.toLocaleString('en')} (p50 ${seconds(percentile(closed, 50))}, worst ${seconds(worstClose)}), still open at the cap: ${result.stillOpen}, refused while opening: ${result.failedToOpen}`);
    console.log(`  second client: ${normal.latencies.length}/${normal.sent} answered 200, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms${failures ? `; failures: ${failures}` : ''}\n`);

    const allClosed = result.stillOpen === 0 && closed.length + result.failedToOpen === floodCount;
    printTargets([
      ...OTHER_ROWS,
      { figure: 'a socket held by a client sending one header byte every 2 s', target: '≤ 11 s', measured: Number.isNaN(headers.worst) ? null : seconds(headers.worst), met: headers.worst <= 11_000 },
      { figure: 'a socket held by a client trickling a body', target: '≤ 31 s', measured: Number.isNaN(bodies.worst) ? null : seconds(bodies.worst), met: bodies.worst <= 31_000 },
      {
        figure: `${floodCount.toLocaleString('en')} connections that send nothing: each closed by the gateway within`,
        target: '11 s',
        measured: allClosed ? seconds(worstClose) : `${result.stillOpen} still open after ${seconds(150_000)}`,
        met: allClosed && worstClose <= 11_000,
      },
      {
        figure: 'normal requests answered during that flood (a second client)',
        target: 'all, p99 ≤ 100 ms',
        measured: `${normal.latencies.length}/${normal.sent}, p99 ${p99.toFixed(1)} ms (without the flood: ${baselineP99.toFixed(1)} ms)`,
        met: normal.latencies.length === normal.sent && p99 <= 100,
      },
    ]);
  } finally {
    gateway?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--normal-client') {
  await normalClient(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
  process.exit(0);
} else {
  await main();
}
