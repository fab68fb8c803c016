/**
 * Before/after benchmark of the card-page hot path: the gateway of another revision (the
 * baseline, measured in the same run) against the working tree's, on the same catalog and pages.
 *
 * Why a second card benchmark: bench:cards compares the gateway with servers that replay its
 * response, which says how close it is to the floor but not whether a change made it slower; on
 * this 2-core machine two separate runs differ by ±30 %. Here both gateways run at once and each
 * round measures both, each first in turn (wrk on core 1, gateways on core 0), so load from elsewhere
 * hits a round's two runs alike; the figure is the median of the rounds' ratios. This is how a
 * 20 % slowdown hidden in run-to-run noise was found (commit 0e6a1b9).
 *
 * The baseline revision is checked out in a temporary git worktree that borrows this tree's
 * node_modules (the @snapdeck/* links point at the worktree's own packages); each gateway builds
 * the snapshots and creates its key with its own CLI.
 *
 * Usage: npm run bench:compare [-- --base main --rounds 5 --seconds 5]
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startGatewayProcess } from './lib/process.ts';
import { PINNING, bothInTurn, ensureWrk, runWrk } from './lib/wrk.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: options } = parseArgs({
  options: {
    base: { type: 'string', default: 'main' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
  },
});
const rounds = Number(options.rounds);
const seconds = Number(options.seconds);
if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(seconds) || seconds < 1) {
  throw new Error('--rounds and --seconds take whole numbers of 1 or more');
}
const CONNECTIONS = 50;
const SCENARIOS = [
  { label: 'hitsPerPage=100, identity', hitsPerPage: 100, encoding: 'identity' },
  { label: 'hitsPerPage=100, brotli', hitsPerPage: 100, encoding: 'br' },
  { label: 'hitsPerPage=1000, brotli', hitsPerPage: 1000, encoding: 'br' },
  { label: 'hitsPerPage=250 (not pre-rendered), identity', hitsPerPage: 250, encoding: 'identity' },
] as const;

const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-compare-'));
const children: ChildProcess[] = [];
const baseTree = join(work, 'base');
process.on('exit', () => {
  children.forEach((child) => child.kill('SIGKILL'));
  spawnSync('git', ['-C', root, 'worktree', 'remove', '--force', baseTree], { stdio: 'ignore' });
  rmSync(work, { recursive: true, force: true });
});

/** A worktree of `rev` whose node_modules are this tree's, except @snapdeck/*: its own packages. */
function checkoutBase(rev: string): string {
  git('worktree', 'add', '--detach', baseTree, rev);
  const modules = join(baseTree, 'node_modules');
  mkdirSync(join(modules, '@snapdeck'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry !== '@snapdeck') symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
  for (const pkg of readdirSync(join(baseTree, 'packages'))) symlinkSync(join(baseTree, 'packages', pkg), join(modules, '@snapdeck', pkg));
  return git('rev-parse', '--short', rev);
}

/** Builds the catalog with `tree`'s CLI, creates a key with it, and starts its gateway. */
async function startTreeGateway(tree: string, name: string, port: number): Promise<{ base: string; key: string }> {
  const cli = join(tree, 'packages', 'cli', 'bin', 'snapdeck.js');
  const snapshots = join(work, `${name}-snapshots`);
  const db = join(work, `${name}.db`);
  const run = (args: string[]) => execFileSync(process.execPath, [cli, ...args], { cwd: tree, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  run(['build', '--catalog', join(root, 'data', 'catalog'), '--out', snapshots]);
  const key = run(['keys', 'create', '--db', db, '--name', 'bench', '--quota', '999999999999']).trim().split('\n').pop()!;
  const { gateway, base } = await startGatewayProcess(cli, port, snapshots, db);
  children.push(gateway);
  return { base, key };
}

/** The second page of a walk (reached by cursor, like a partner's) for a hitsPerPage. */
async function secondPage(gateway: { base: string; key: string }, hitsPerPage: number): Promise<string> {
  const first = await fetch(`${gateway.base}/games/digimon/cards?hitsPerPage=${hitsPerPage}`, { headers: { 'X-API-Key': gateway.key } });
  if (!first.ok) throw new Error(`${gateway.base}: the first page answered ${first.status}`);
  const { data } = (await first.json()) as { data: { cursor: string } };
  return `${gateway.base}/games/digimon/cards?hitsPerPage=${hitsPerPage}&cursor=${encodeURIComponent(data.cursor)}`;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

ensureWrk();
const baseRev = checkoutBase(options.base!);
const headRev = `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? '+changes' : ''}`;
console.log(`snapdeck card hot path, ${baseRev} (base) against ${headRev} (this tree) — ${new Date().toISOString()}, node ${process.version}, wrk ${CONNECTIONS} connections, ${rounds} rounds of ${seconds} s per gateway, alternating, ${PINNING}\n`);
const base = await startTreeGateway(baseTree, 'base', 18801);
const head = await startTreeGateway(root, 'head', 18802);

console.log('| scenario | base req/s (median) | this tree req/s (median) | ratio (median of rounds) | rounds: this tree / base |');
console.log('|---|---:|---:|---:|---|');
for (const scenario of SCENARIOS) {
  const urls = [await secondPage(base, scenario.hitsPerPage), await secondPage(head, scenario.hitsPerPage)] as const;
  const headers = (gateway: { key: string }) => ({ 'X-API-Key': gateway.key, 'Accept-Encoding': scenario.encoding });
  runWrk(urls[0], { connections: CONNECTIONS, seconds: 2, headers: headers(base) });
  runWrk(urls[1], { connections: CONNECTIONS, seconds: 2, headers: headers(head) });
  const results: Array<{ base: number; head: number }> = [];
  for (let round = 0; round < rounds; round++) {
    const measure = (side: 0 | 1) => () => runWrk(urls[side], { connections: CONNECTIONS, seconds, headers: headers(side === 0 ? base : head) });
    const [b, h] = bothInTurn(round, measure(0), measure(1));
    if (b.non2xx || h.non2xx) throw new Error(`${scenario.label}: non-2xx answers (base ${b.non2xx}, this tree ${h.non2xx})`);
    results.push({ base: b.requestsPerSecond, head: h.requestsPerSecond });
  }
  const ratios = results.map((r) => r.head / r.base);
  console.log(
    `| ${scenario.label} | ${median(results.map((r) => r.base)).toFixed(0)} | ${median(results.map((r) => r.head)).toFixed(0)} | ${median(ratios).toFixed(2)}× | ${ratios.map((r) => r.toFixed(2)).join(' ')} |`,
  );
}
process.exit(0); // the exit handler stops the gateways and removes the worktree
