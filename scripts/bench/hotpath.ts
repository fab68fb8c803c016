/**
 * The gateway's per-request cost, answer by answer. Each row is the requests/s of `snapdeck
 * serve` as an operator runs it (access log at info to a file, metrics, quota, key auth) over the
 * requests/s of a bare node:http server sending the very same bytes from memory (status, headers
 * and body captured from the gateway, lib/bare-server.ts), measured in the same run: servers
 * pinned to core 0 and wrk (1 thread, 50 connections) to core 1 where taskset exists, the two
 * alternating, each first every other round; the ratio is the median of the rounds' ratios, shown with its
 * spread (min–max) and each side's median requests/s.
 *
 * Two rows are not against the bare server: one card with quotas counted in Redis (a
 * redis-server of this script's, pinned with wrk, standing for another host) against the same
 * gateway counting in-process; and the gateway's RSS after every run against `--base-rss`.
 *
 * The machine may be shared: other processes take turns on the cores, and a server then answers
 * fewer requests per second for reasons of its own. So each run also reads the server's CPU time
 * (/proc, every thread: the access log's writes included) and the table shows, beside the ratio
 * of requests/s, the ratio of requests per CPU-second, which such load hardly moves; on an idle
 * machine the two agree (a pinned server saturates its core). A third figure says whether a run
 * measured the server at all: the share of the run its main thread was on a core or waiting for
 * one (lib/process.ts schedNs); well below 1, wrk (starved on its own core) was the bottleneck.
 *
 * A slower server pays more in the kernel for the same bytes: wrk, waiting for its answers, is
 * asleep when one is written, and waking it is part of the write (loopback delivers in the
 * writer's system call). So each row also runs the bare server paced to the gateway's rate (a busy
 * wait per request as long as the gateway's extra user-space time, lib/bare-server.ts) and shows, per
 * answer, the kernel time of the gateway, the bare server and the paced one, and the ratio per
 * CPU-second the gateway would have if the bare server paid the paced one's kernel time: what the
 * gateway's own work costs, apart from the wake-ups (docs/benchmarks.md).
 *
 * The access-log file is counted after each row: a gateway that answered N requests wrote at
 * least N lines (wrk does not count the requests in flight when it stops, the gateway does).
 *
 * Usage: npm run bench:hotpath [-- --rounds 5 --seconds 4 --only card --base-rss 120 --skip-redis --skip-paced]
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { capture, prepareFixture, startLoggedGateway } from './lib/hotpath-setup.ts';
import { cpuTimes, freePort, rssMB, schedNs } from './lib/process.ts';
import { PINNING, bothInTurn, ensureWrk, pinClient, pinServer, runWrk } from './lib/wrk.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = join(root, 'packages', 'cli', 'bin', 'snapdeck.js');
const { values: options } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '4' },
    only: { type: 'string' },
    'base-rss': { type: 'string' },
    'skip-redis': { type: 'boolean', default: false },
    'skip-paced': { type: 'boolean', default: false },
  },
});
const rounds = Number(options.rounds);
const seconds = Number(options.seconds);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seconds) || seconds < 1) throw new Error('--rounds and --seconds take whole numbers of 1 or more');
const baseRss = options['base-rss'] === undefined ? null : Number(options['base-rss']);
const CONNECTIONS = 50;

const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-hotpath-'));
const children: ChildProcess[] = [];
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));

ensureWrk();
console.log(`snapdeck hot path — ${new Date().toISOString()}, node ${process.version}, wrk ${CONNECTIONS} connections, ${rounds} alternating rounds of ${seconds} s, ${PINNING}`);
const fixture = await prepareFixture(cli, work);
const gateway = await startLoggedGateway(cli, fixture, await freePort(), join(work, 'access.log'));
children.push(gateway.process);
const keyed = { 'X-API-Key': fixture.key };

/** One answer to measure: a request, and what it is held to. */
interface Scenario {
  label: string;
  url: string;
  headers: Record<string, string>;
  target: number;
  post?: string;
}

const base = gateway.base;
const firstPage = async (hitsPerPage: number) =>
  JSON.parse((await capture(`${base}/games/digimon/cards?hitsPerPage=${hitsPerPage}`, { headers: { ...keyed, 'Accept-Encoding': 'identity' } })).body.toString()) as {
    data: { hits: { id: string }[]; cursor: string };
  };
/** The second page of a walk (reached by cursor, like a partner's). */
const secondPage = async (hitsPerPage: number) => `${base}/games/digimon/cards?hitsPerPage=${hitsPerPage}&cursor=${encodeURIComponent((await firstPage(hitsPerPage)).data.cursor)}`;
const cardUrl = `${base}/games/digimon/cards/${(await firstPage(1)).data.hits[0]!.id}`;
const detailsBody = JSON.stringify({ ids: fixture.deckIds });

const scenarios = ([
  { label: 'one card by id, identity', url: cardUrl, headers: { ...keyed, 'Accept-Encoding': 'identity' }, target: 0.5 },
  { label: 'one card by id, br', url: cardUrl, headers: { ...keyed, 'Accept-Encoding': 'gzip, deflate, br' }, target: 0.5 },
  { label: 'GET /v1/games', url: `${base}/games`, headers: { ...keyed, 'Accept-Encoding': 'identity' }, target: 0.5 },
  { label: 'GET /v1/decks/{deckId} (json)', url: `${base}/decks/${fixture.deckIds[0]}`, headers: { 'Accept-Encoding': 'identity' }, target: 0.5 },
  { label: 'POST /v1/decks/details (10 ids)', url: `${base}/decks/details`, headers: { ...keyed, 'Content-Type': 'application/json' }, target: 0.5, post: detailsBody },
  { label: 'card page hitsPerPage=100 (pre-rendered), identity', url: await secondPage(100), headers: { ...keyed, 'Accept-Encoding': 'identity' }, target: 0.8 },
  { label: 'card page hitsPerPage=37 (rendered per request), identity', url: await secondPage(37), headers: { ...keyed, 'Accept-Encoding': 'identity' }, target: 0.6 },
  { label: 'card page hitsPerPage=1000, identity', url: await secondPage(1000), headers: { ...keyed, 'Accept-Encoding': 'identity' }, target: 0.95 },
] as Scenario[]).filter((s) => options.only === undefined || s.label.includes(options.only));

/** A wrk Lua script sending `body` as a JSON POST. */
async function postScript(body: string): Promise<string> {
  const file = join(work, `post-${Math.random().toString(36).slice(2)}.lua`);
  await writeFile(file, `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`);
  return file;
}

/** lib/bare-server.ts on a free port replaying `body` with `headers` (after `paceUs` of busy CPU time), pinned like the gateway. */
async function startBare(body: Buffer, headers: Record<string, string>, paceUs = 0): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const bodyFile = join(work, `body-${port}`);
  await writeFile(bodyFile, body);
  await writeFile(`${bodyFile}.headers.json`, JSON.stringify(headers));
  const child = fork(join(root, 'scripts', 'bench', 'lib', 'bare-server.ts'), [String(port), bodyFile, `${bodyFile}.headers.json`, String(paceUs)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.push(child);
  pinServer(child.pid);
  await once(child, 'message');
  return { child, url: `http://127.0.0.1:${port}/` };
}

interface Side {
  url: string;
  headers: Record<string, string>;
  script?: string;
  /** The server answering, for its CPU time. */
  pid: number;
}

/** One wrk run against one server. */
interface Run {
  rps: number;
  perCpuSecond: number;
  /** How much of the run the server's main thread wanted a core (lib/process.ts schedNs). */
  demand: number;
  /** CPU time per answer, µs, in user space and in the kernel (every thread's). */
  userUs: number;
  kernelUs: number;
}

/** Runs wrk against `side` for `s` seconds; every answer must be a 2xx. */
function measure(label: string, side: Side, s: number): Run {
  const cpu = cpuTimes(side.pid);
  const sched = schedNs(side.pid);
  const started = performance.now();
  const result = runWrk(side.url, { connections: CONNECTIONS, seconds: s, headers: side.headers, script: side.script });
  const wallNs = (performance.now() - started) * 1e6;
  const after = cpuTimes(side.pid);
  const scheduled = schedNs(side.pid);
  if (result.non2xx > 0) throw new Error(`${label}: ${result.non2xx} answers were not 2xx from ${side.url}`);
  const answers = result.requestsPerSecond * s;
  const used = after.user - cpu.user + after.system - cpu.system;
  return {
    rps: result.requestsPerSecond,
    perCpuSecond: answers / used,
    demand: (scheduled.running - sched.running + scheduled.waiting - sched.waiting) / wallNs,
    userUs: ((after.user - cpu.user) * 1e6) / answers,
    kernelUs: ((after.system - cpu.system) * 1e6) / answers,
  };
}

/** The runs of each side, round by round: a[i] and b[i] were measured one after the other. */
interface Measured {
  a: Run[];
  b: Run[];
}

/** A 2-s warm-up of each, then `rounds` rounds of both, a first and b first in turn; every answer must be a 2xx. */
function alternate(label: string, a: Side, b: Side): Measured {
  const wrk = (side: Side, s: number) => measure(label, side, s);
  wrk(a, 2);
  wrk(b, 2);
  const measured: Measured = { a: [], b: [] };
  for (let round = 0; round < rounds; round++) {
    const [ra, rb] = bothInTurn(round, () => wrk(a, seconds), () => wrk(b, seconds));
    measured.a.push(ra);
    measured.b.push(rb);
  }
  return measured;
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
const spread = (values: number[], digits: number) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
const rate = (runs: Run[]) => {
  const values = runs.map((r) => r.rps);
  return `${median(values).toFixed(0)} (${spread(values, 0)})`;
};
/** The median over `runs` of `f`. */
const per = (runs: Run[], f: (run: Run) => number) => median(runs.map(f));
const rows: string[] = [];
const row = (label: string, m: Measured, versus: string, target: number) => {
  // Per round: a's requests/s, and requests per CPU-second, over b's.
  const ratios = m.a.map((ra, i) => ra.rps / m.b[i]!.rps);
  const cpuRatios = m.a.map((ra, i) => ra.perCpuSecond / m.b[i]!.perCpuSecond);
  const ratio = median(ratios);
  const cpuRatio = median(cpuRatios);
  rows.push(
    `| ${label} | ${rate(m.a)} | ${versus}: ${rate(m.b)} | ${ratio.toFixed(2)} (${spread(ratios, 2)}) | ${cpuRatio.toFixed(2)} (${spread(cpuRatios, 2)}) | ${per(m.a, (r) => r.demand).toFixed(2)} / ${per(m.b, (r) => r.demand).toFixed(2)} | ≥ ${target} ${ratio >= target ? 'ok' : 'MISSED'}${cpuRatio >= target ? '' : ' (per CPU-second: MISSED)'} |`,
  );
};

const wakeRows: string[] = [];

/**
 * The bare server paced to the gateway's rate (a busy wait per request as long as the gateway's
 * extra user-space time; a 2-s warm-up, then 3 runs): its kernel time per answer is what a server
 * answering as fast as the gateway pays for the same bytes and the same wake-ups of wrk.
 */
async function wakeRow(label: string, answer: { body: Buffer; headers: Record<string, string> }, m: Measured, request: Omit<Side, 'pid' | 'url'>): Promise<void> {
  const [gatewayUser, bareUser] = [per(m.a, (r) => r.userUs), per(m.b, (r) => r.userUs)];
  const [gatewayKernel, bareKernel] = [per(m.a, (r) => r.kernelUs), per(m.b, (r) => r.kernelUs)];
  const paced = await startBare(answer.body, answer.headers, Math.max(0, Math.round(gatewayUser - bareUser)));
  const side: Side = { ...request, url: paced.url, pid: paced.child.pid! };
  measure(label, side, 2);
  const runs = [1, 2, 3].map(() => measure(label, side, seconds));
  paced.child.kill();
  const pacedKernel = per(runs, (r) => r.kernelUs);
  const equalWakeUps = (bareUser + pacedKernel) / (gatewayUser + gatewayKernel);
  wakeRows.push(
    `| ${label} | ${gatewayUser.toFixed(1)} / ${bareUser.toFixed(1)} | ${gatewayKernel.toFixed(1)} / ${bareKernel.toFixed(1)} | ${pacedKernel.toFixed(1)} (${per(runs, (r) => r.rps).toFixed(0)} req/s) | ${equalWakeUps.toFixed(2)} |`,
  );
}

for (const scenario of scenarios) {
  const answer = await capture(scenario.url, { method: scenario.post ? 'POST' : 'GET', headers: scenario.headers, body: scenario.post });
  if (answer.status !== 200) throw new Error(`${scenario.label}: the gateway answered ${answer.status}: ${answer.body.toString().slice(0, 200)}`);
  const bare = await startBare(answer.body, answer.headers);
  const script = scenario.post ? await postScript(scenario.post) : undefined;
  gateway.takeLines();
  const m = alternate(scenario.label, { url: scenario.url, headers: scenario.headers, script, pid: gateway.process.pid! }, { url: bare.url, headers: scenario.headers, script, pid: bare.child.pid! });
  const logged = gateway.takeLines();
  const answered = m.a.reduce((sum, r) => sum + r.rps * seconds, 0);
  if (logged < answered * 0.99) throw new Error(`${scenario.label}: ${logged} access-log lines for about ${answered.toFixed(0)} requests`);
  bare.child.kill();
  row(`${scenario.label} (${(answer.body.length / 1024).toFixed(1)} KiB)`, m, 'bare', scenario.target);
  if (!options['skip-paced']) await wakeRow(scenario.label, answer, m, { headers: scenario.headers, script });
  console.error(`measured: ${scenario.label}`);
}

if (!options['skip-redis'] && (options.only === undefined || options.only === 'redis')) {
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
  children.push(redis);
  pinClient(redis.pid); // another host's work: off the gateways' core
  const shared = await startLoggedGateway(cli, fixture, await freePort(), join(work, 'access-redis.log'), ['--redis', `redis://127.0.0.1:${redisPort}`]);
  children.push(shared.process);
  const path = new URL(cardUrl).pathname;
  const headers = { ...keyed, 'Accept-Encoding': 'identity' };
  const m = alternate('redis', { url: `${shared.base.replace(/\/v1$/, '')}${path}`, headers, pid: shared.process.pid! }, { url: cardUrl, headers, pid: gateway.process.pid! });
  row('one card by id, identity, --redis quotas', m, 'in-process quotas', 0.7);
  shared.process.kill('SIGTERM');
  redis.kill();
}

const memory = rssMB(gateway.process.pid!);
gateway.process.kill('SIGTERM');
await once(gateway.process, 'exit');

console.log('\n| answer | gateway req/s, median (min–max) | baseline req/s | ratio of req/s, median (min–max) | ratio of req per CPU-second | main thread wanting a core, gateway / baseline | target |');
console.log('|---|---:|---:|---:|---:|---:|---|');
for (const line of rows) console.log(line);
if (wakeRows.length > 0) {
  console.log('\nCPU time per answer, µs (medians), and the bare server paced to the gateway\'s rate (its kernel time: the same bytes, and wrk woken as often):');
  console.log('\n| answer | user: gateway / bare | kernel: gateway / bare | kernel: bare paced to the gateway\'s rate | ratio per CPU-second had bare paid the paced kernel time |');
  console.log('|---|---:|---:|---:|---:|');
  for (const line of wakeRows) console.log(line);
}
const rssVerdict = baseRss === null ? 'no --base-rss given' : `${(memory.rss / baseRss).toFixed(2)}× of ${baseRss} MB, target ≤ 1.1× ${memory.rss <= baseRss * 1.1 ? 'ok' : 'MISSED'}`;
console.log(`\ngateway RSS after the runs: ${memory.rss.toFixed(0)} MB (peak ${memory.peak.toFixed(0)} MB); ${rssVerdict}`);
const load = (await import('node:os')).loadavg();
console.log(`load average at the end (1/5/15 min): ${load.map((l) => l.toFixed(1)).join(' / ')}`);
await rm(work, { recursive: true, force: true });
process.exit(0);
