import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { ensureInstalled, freePort, killOnExit, stopProcess } from './processes.ts';
import { registerSecret } from './secret-scan.ts';

/**
 * A real Redis for tests: `redis-server` on a free 127.0.0.1 port, in the foreground (not
 * daemonized) as a child of the test process, without persistence. When redis-server is not
 * installed, scripts/ci/ensure-redis.sh installs it first (apt-get): tests never skip for lack of it.
 */
export interface RedisTestServer {
  /** redis://127.0.0.1:port, without credentials even when the server requires a password. */
  url: string;
  port: number;
  /** The child process (tests may SIGSTOP / SIGCONT it to simulate a hung Redis). */
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Installs redis-server when it is missing (idempotent; quiet when it is there). */
export function ensureRedisInstalled(): void {
  ensureInstalled('redis-server', ['--version'], 'ensure-redis.sh');
}

/** True when a RESP PING on 127.0.0.1:port (after AUTH when `password` is given) answers +PONG. */
function ping(port: number, password: string | undefined, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    // RESP arrays, so that any byte of a password goes through.
    const command = (...args: string[]) => `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
    socket.once('connect', () => socket.write(password === undefined ? command('PING') : command('AUTH', password) + command('PING')));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      const lines = reply.split('\r\n');
      if (lines.length > (password === undefined ? 1 : 2)) done(lines[password === undefined ? 0 : 1]!.startsWith('+PONG'));
    });
  });
}


async function launch(port: number, password: string | undefined, timeoutMs: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--protected-mode', 'yes', '--loglevel', 'warning'],
      ...(password === undefined ? [] : ['--requirepass', password]),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let exited: string | null = null;
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`));
  child.once('error', (error) => (exited = `failed to start: ${error.message}`));
  killOnExit(child);
  const started = Date.now();
  for (;;) {
    if (exited !== null) throw new Error(`redis-server on port ${port} ${exited}:\n${output}`);
    if (await ping(port, password)) return child;
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer PING on 127.0.0.1:${port} within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts a fresh redis-server on a free port. Call stop() when done (afterAll). With `password`,
 * it starts with `--requirepass`: every client must AUTH (as the default user) first.
 */
export async function startRedisServer(options: { timeoutMs?: number; password?: string } = {}): Promise<RedisTestServer> {
  ensureRedisInstalled();
  // The secret scan then fails any test whose captured output prints it (0 secrets in any output).
  if (options.password !== undefined) registerSecret(options.password, 'the test Redis password');
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; !child; attempt++) {
    port = await freePort();
    try {
      child = await launch(port, options.password, options.timeoutMs ?? 10_000);
    } catch (error) {
      // Another process took the port between freePort() and redis-server's bind.
      if (attempt >= 3 || !/Address already in use|bind/i.test((error as Error).message)) throw error;
    }
  }
  const server = child;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    process: server,
    stop: () => stopProcess(server),
  };
}
