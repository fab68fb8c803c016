import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killOnExit } from './processes.ts';
import { scanCliOutput, scanForSecrets } from './secret-scan.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'packages', 'cli', 'bin', 'snapdeck.js');

/** A `snapdeck serve --port 0` child process, its URL read from the line it prints on stderr. */
export interface CliGateway {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout / stderr so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves with the exit code. */
  stop(timeoutMs?: number): Promise<number | string>;
}


/**
 * Runs the CLI with `args` (`tsx`: its sources under tsx instead of bin/snapdeck.js); resolves
 * once it has printed its URL (or rejects when it exits first).
 * No drain on SIGTERM unless the test asks for one (`--drain-ms`, or SNAPDECK_DRAIN_MS in `env`):
 * without a balancer to move away, the 5 s default would only slow every test's stop().
 */
export async function startCliGateway(args: string[], options: { env?: Record<string, string>; timeoutMs?: number; tsx?: boolean } = {}): Promise<CliGateway> {
  // tsx: the CLI's sources run under tsx, as `npm start` runs the gateway (tsx rewrites functions: keepNames).
  const cli = options.tsx === true ? ['--import', 'tsx', join(ROOT, 'packages', 'cli', 'src', 'main.ts')] : [CLI];
  const child = spawn(process.execPath, [...cli, 'serve', '--host', '127.0.0.1', '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'silent', SNAPDECK_DRAIN_MS: '0', ...options.env },
  });
  killOnExit(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  // Its output (logs included) is scanned for secrets once it has all been read (helpers/secret-scan.ts).
  child.once('close', () => {
    scanForSecrets('snapdeck serve stdout', stdout);
    scanForSecrets('snapdeck serve stderr', stderr);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`snapdeck serve printed no URL within ${options.timeoutMs ?? 30_000} ms:\n${stderr}`)), options.timeoutMs ?? 30_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+?)\/v1\b/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stderr!.on('data', check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`snapdeck serve exited (${code}) before listening:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    output: () => ({ stdout, stderr }),
    exited,
    async stop(timeoutMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) {
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.kill('SIGTERM');
        const code = await exited;
        clearTimeout(timer);
        return code;
      }
      return exited;
    },
  };
}

/** Runs the CLI to completion; returns its exit code and output. */
export function runCli(args: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<{ code: number | string; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'silent', ...options.env } });
    killOnExit(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    // 'close': the output is complete (all of stdout and stderr read), then scanned for secrets.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      scanCliOutput(args, stdout, stderr);
      resolve({ code: code ?? signal ?? -1, stdout, stderr });
    });
  });
}
