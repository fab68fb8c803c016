import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pinServer } from './wrk.ts';
export { freePort } from '../../lib/free-port.ts';

/** Resolves once `url` answers at all (any status), or throws after `seconds`. */
export async function waitForHttp(url: string, seconds = 20): Promise<void> {
  for (const started = Date.now(); Date.now() - started < seconds * 1000; ) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${url} did not come up within ${seconds} s`);
}

/** Resident memory of a process now and at its peak, in MB (Linux /proc). */
export function rssMB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * `snapdeck serve` in its own process (pinned like every benchmarked server, access log off), on
 * `port`; resolves with the process and its /v1 base URL once it answers.
 */
export async function startGatewayProcess(cli: string, port: number, snapshots: string, db: string, extraArgs: string[] = []): Promise<{ gateway: ChildProcess; base: string }> {
  const gateway = spawn(process.execPath, [cli, 'serve', '--port', String(port), '--snapshots', snapshots, '--db', db, ...extraArgs], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  pinServer(gateway.pid);
  const base = `http://127.0.0.1:${port}/v1`;
  await waitForHttp(`${base}/openapi.json`);
  return { gateway, base };
}

/** Linux's clock ticks per second (`getconf CLK_TCK`), the unit of /proc/<pid>/stat's times. */
const CLOCK_TICKS = 100;

/** CPU time a process has used so far, every thread's, in seconds (Linux /proc): in user space and in the kernel. */
export function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, so it is skipped by its parenthesis).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / CLOCK_TICKS, system: Number(fields[12]) / CLOCK_TICKS };
}

/**
 * How much of the wall time a process's main thread wanted a core, from /proc/<pid>/schedstat
 * (nanoseconds on a core and waiting for one). Near 1: the server was the bottleneck (busy, or
 * ready and kept off its core by other processes); well below 1: it sat idle waiting for
 * requests, so the load generator was the bottleneck and its figure says little about the server.
 */
export function schedNs(pid: number): { running: number; waiting: number } {
  const [running, waiting] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
  return { running: running!, waiting: waiting! };
}
