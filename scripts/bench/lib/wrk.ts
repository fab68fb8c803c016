import { execFileSync, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** wrk is the load generator (autocannon saturates below what node:http can serve here). */
export function ensureWrk(): string {
  const found = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  console.error('wrk is not installed; installing it with apt-get (Debian package "wrk") …');
  execFileSync('sh', ['-c', '(apt-get update -qq || true) && apt-get install -y -qq wrk'], { stdio: 'inherit' });
  return 'wrk';
}

export interface WrkResult {
  requestsPerSecond: number;
  megabytesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60000;
}

function toMB(value: string): number {
  const m = /^([\d.]+)([KMG]?B)$/.exec(value.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'KB' ? n / 1024 : m[2] === 'MB' ? n : m[2] === 'GB' ? n * 1024 : n / 1024 / 1024;
}

/**
 * CPU pinning. On a small machine the load generator and the server fight for the same cores, and
 * whichever uses more CPU per request also starves wrk: the figures then measure the scheduler.
 * When `taskset` is there and the machine has at least two cores, servers run on core 0 and wrk
 * (one thread) on core 1, for the gateway and its baseline alike.
 */
const PIN = availableParallelism() >= 2 && spawnSync('sh', ['-c', 'command -v taskset'], { encoding: 'utf8' }).stdout.trim() !== '';
export const PINNING = PIN ? 'servers on core 0, wrk (1 thread) on core 1' : 'no CPU pinning (taskset missing or one core)';

/** Pins a running server process (all its threads) to core 0; a no-op without pinning. */
export function pinServer(pid: number | undefined): void {
  if (PIN && pid !== undefined) spawnSync('taskset', ['-a', '-cp', '0', String(pid)], { stdio: 'ignore' });
}

/** Pins a load-generating process (all its threads) to core 1, away from the server; a no-op without pinning. */
export function pinClient(pid: number | undefined): void {
  if (PIN && pid !== undefined) spawnSync('taskset', ['-a', '-cp', '1', String(pid)], { stdio: 'ignore' });
}

/**
 * Runs wrk with keep-alive connections; returns its figures. `script`: a Lua file passed with -s
 * (for instance `wrk.method = "POST"; wrk.body = ...` for POST requests).
 */
export function runWrk(url: string, options: { connections: number; seconds: number; threads?: number; headers?: Record<string, string>; script?: string }): WrkResult {
  const args = ['-t', String(options.threads ?? (PIN ? 1 : 2)), '-c', String(options.connections), '-d', `${options.seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  if (options.script) args.push('-s', options.script);
  args.push(url);
  const out = PIN ? execFileSync('taskset', ['-c', '1', ensureWrk(), ...args], { encoding: 'utf8' }) : execFileSync(ensureWrk(), args, { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const transfer = /Transfer\/sec:\s+(\S+)/.exec(out)?.[1] ?? '';
  const p50 = /\s50%\s+(\S+)/.exec(out)?.[1] ?? '';
  const p99 = /\s99%\s+(\S+)/.exec(out)?.[1] ?? '';
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { requestsPerSecond: rps, megabytesPerSecond: toMB(transfer), p50Ms: toMs(p50), p99Ms: toMs(p99), non2xx };
}

/**
 * One round of two measurements, each side first every other round: a run right after the other
 * server's was measured up to 5-10 % apart from one before it on some runs of this machine
 * (docs/benchmarks.md). Returns a's result and b's, whichever ran first.
 */
export function bothInTurn<T>(round: number, a: () => T, b: () => T): [T, T] {
  if (round % 2 === 0) {
    const first = a();
    return [first, b()];
  }
  const first = b();
  return [a(), first];
}
