import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { requestTarget } from './raw-target.ts';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureInstalled, freePort, killOnExit, stopProcess } from './processes.ts';

/** The files the project ships; the tests run snapdeck.vcl as it is, and backends.vcl bar its ports. */
export const SHIPPED_VCL = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'deploy', 'varnish', 'snapdeck.vcl');
export const SHIPPED_BACKENDS = join(dirname(SHIPPED_VCL), 'backends.vcl');
/** The two backend blocks as shipped: `.host = "127.0.0.1"; .port = "8787";` and `"8788"`. */
const BACKEND_PORT = (port: number) => new RegExp(`(backend gateway_${port} \\{\\s*\\.host = "127\\.0\\.0\\.1";\\s*\\.port = ")${port}(";)`);
const SHIPPED_PORTS = [8787, 8788] as const;

/**
 * A real Varnish (Debian's varnishd, installed by scripts/ci/ensure-varnish.sh when missing) in
 * front of a gateway, on a free 127.0.0.1 port, in the foreground as a child of the test process,
 * running the shipped deploy/varnish/snapdeck.vcl with its backend pointed at `backendPort`.
 */
export interface VarnishTestServer {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** The backends.vcl it runs (the shipped one, ports substituted; empty with the builtin VCL). */
  backends: string;
  stop(): Promise<void>;
}

/** Debian puts varnishd in /usr/sbin, which a non-root PATH may lack. */
export function varnishd(): string {
  return existsSync('/usr/sbin/varnishd') ? '/usr/sbin/varnishd' : 'varnishd';
}

/** Installs Varnish with the project's script when it is missing (quiet when it is there). */
export function ensureVarnishInstalled(): void {
  ensureInstalled(varnishd, ['-V'], 'ensure-varnish.sh');
}

/** The probe's `.interval` line in backends.vcl. */
const PROBE_INTERVAL = /(\.interval\s*=)\s*\d+s;/;

/**
 * The shipped backends.vcl with its two gateways' ports replaced by `ports` (one port: both
 * backends on it); throws if the backend blocks changed shape. `quietProbes`: the health probe
 * asks /readyz once at start, then hourly instead of every second, for tests that count every
 * request the gateway gets (a probe would count as a request the cache forwarded).
 */
export async function shippedBackendsFor(ports: readonly number[], options: { quietProbes?: boolean } = {}): Promise<string> {
  if (ports.length < 1 || ports.length > SHIPPED_PORTS.length) throw new Error(`the shipped backends.vcl has ${SHIPPED_PORTS.length} gateways; give 1 or 2 ports`);
  let backends = await readFile(SHIPPED_BACKENDS, 'utf8');
  SHIPPED_PORTS.forEach((shipped, i) => {
    const pattern = BACKEND_PORT(shipped);
    if (!pattern.test(backends)) throw new Error(`${SHIPPED_BACKENDS} no longer has the backend block at 127.0.0.1:${shipped} the tests substitute`);
    backends = backends.replace(pattern, `$1${ports[i] ?? ports[0]}$2`);
  });
  if (options.quietProbes) {
    if (!PROBE_INTERVAL.test(backends)) throw new Error(`${SHIPPED_BACKENDS} no longer has the probe interval the tests substitute`);
    backends = backends.replace(PROBE_INTERVAL, '$1 1h;');
  }
  return backends;
}

/** Resolves once any HTTP answer comes back from 127.0.0.1:port. */
function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', timeout: 500 }, (res) => {
      res.resume();
      resolve(true);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

async function launch(workdir: string, config: string[], port: number, timeoutMs: number): Promise<ChildProcess> {
  const child = spawn(
    varnishd(),
    // -F: foreground; -n: a private work dir; -T none: no management port; a small malloc store.
    ['-F', '-a', `127.0.0.1:${port}`, ...config, '-n', join(workdir, 'varnish'), '-s', 'malloc,64m', '-T', 'none'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let exited: string | null = null;
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000)));
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? code}`));
  child.once('error', (error) => (exited = `failed to start: ${error.message}`));
  killOnExit(child);
  const started = Date.now();
  for (;;) {
    if (exited !== null) throw new Error(`varnishd on port ${port} ${exited}:\n${output}`);
    if (await answers(port)) return child;
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`varnishd did not answer on 127.0.0.1:${port} within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts varnishd with the shipped VCL in front of 127.0.0.1:backendPort, or of the two gateways
 * of `backendPorts` (with `builtin`: with Varnish's builtin VCL alone, as an operator who ships no
 * configuration would). Call stop().
 */
export async function startVarnish(options: { backendPort?: number; backendPorts?: readonly number[]; builtin?: boolean; timeoutMs?: number; quietProbes?: boolean }): Promise<VarnishTestServer> {
  const ports = options.backendPorts ?? (options.backendPort !== undefined ? [options.backendPort] : []);
  if (ports.length === 0) throw new Error('startVarnish needs backendPort or backendPorts');
  ensureVarnishInstalled();
  const workdir = await mkdtemp(join(tmpdir(), 'snapdeck-varnish-'));
  // varnishd drops to its own users (varnish, vcache), which must read the VCL and the work dir.
  await chmod(workdir, 0o755);
  let backends = '';
  let config = ['-b', `127.0.0.1:${ports[0]}`];
  if (!options.builtin) {
    // snapdeck.vcl as shipped, beside the backends.vcl it includes.
    backends = await shippedBackendsFor(ports, { quietProbes: options.quietProbes });
    const vclFile = join(workdir, 'snapdeck.vcl');
    await writeFile(vclFile, await readFile(SHIPPED_VCL, 'utf8'), { mode: 0o644 });
    await writeFile(join(workdir, 'backends.vcl'), backends, { mode: 0o644 });
    config = ['-f', vclFile];
  }
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; !child; attempt++) {
    port = await freePort();
    try {
      child = await launch(workdir, config, port, options.timeoutMs ?? 30_000);
    } catch (error) {
      // Another process took the port between freePort() and varnishd's bind.
      if (attempt >= 3 || !/Address already in use|bind|listen/i.test((error as Error).message)) throw error;
    }
  }
  const server = child;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    backends,
    async stop() {
      await stopProcess(server, 5000);
      await rm(workdir, { recursive: true, force: true });
    },
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as sent (still compressed when Content-Encoding says so). */
  body: Buffer;
}

/**
 * One request with exactly the headers given (node:http: no Accept-Encoding added, nothing
 * decompressed), from `localAddress` when set. Header values may be arrays (repeated headers).
 */
export function rawRequest(url: string, options: { method?: string; headers?: Record<string, string | string[]>; localAddress?: string } = {}): Promise<RawResponse> {
  // The URL parsed first, as http.request(url) does (dot segments resolved); requestTarget sends it.
  const { origin, pathname, search } = new URL(url);
  return requestTarget(origin, `${pathname}${search}`, options);
}

/** Requests a gateway has answered on routes under /v1 (its /metrics), by status when given. */
export async function gatewayRequests(gatewayUrl: string, status?: number): Promise<number> {
  const text = await (await fetch(`${gatewayUrl}/metrics`)).text();
  let total = 0;
  for (const [, labels, count] of text.matchAll(/^snapdeck_http_requests_total\{([^}]*)\} (\d+)$/gm)) {
    const route = /route="([^"]*)"/.exec(labels!)?.[1] ?? '';
    const code = Number(/status="(\d+)"/.exec(labels!)?.[1]);
    if (route.startsWith('/v1') && (status === undefined || code === status)) total += Number(count);
  }
  return total;
}
