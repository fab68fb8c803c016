import { request as httpRequest, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { S3Driver, s3OptionsFromEnv, type S3DriverOptions } from '@snapdeck/snapshot';

/**
 * Storage that misbehaves on demand: a plain HTTP proxy on 127.0.0.1 in front of a real S3 server
 * (moto, test/helpers/s3-server.ts). Clients reach it as their S3 endpoint (path-style, so the path
 * is `/bucket/key`); the test decides, while they run, what happens to their requests:
 *
 * - `failFor(ms)`: every request is answered by a reset connection (ECONNRESET) for a period;
 * - `failOneIn(n)`: one request in n, at random, is reset;
 * - `slow(match, ms)`: a matching response's body is trickled out so that it takes `ms`
 *   (headers at once, then small chunks: no socket goes silent for long);
 * - `delay(match, ms)`: a matching request is held `ms` before it is forwarded;
 * - `freeze()` / `unfreeze()`: nothing is answered (requests wait, like a stopped server) until
 *   unfrozen, when the waiting requests go on.
 *
 * A `match` is a text the request's path (decoded, `/bucket/key?query`) contains, a RegExp, or a
 * function of the method and path; none: every request. A failure can hit a request before it
 * reaches storage (`phase: 'request'`, the default) or after storage has acted on it, losing the
 * answer (`phase: 'response'`: a write that happened although the client saw an error).
 * Every fault holds until `clear()` (or its `forMs` runs out). No mock anywhere: requests that are
 * not failed reach moto and its answers come back byte for byte.
 */
export type Match = string | RegExp | ((method: string, path: string) => boolean);

export interface FaultOptions {
  /** Which requests (default: every one). */
  match?: Match;
  /** The fault ends by itself after this long (default: at clear()). */
  forMs?: number;
  /** Fail before forwarding (default) or after storage answered (the answer is lost). */
  phase?: 'request' | 'response';
}

export interface ProxiedRequest {
  at: number;
  method: string;
  path: string;
  outcome: 'forwarded' | 'failed' | 'slowed' | 'upstream-error';
}

export interface FaultProxy {
  /** http://127.0.0.1:PORT, to use as the S3 endpoint. */
  endpoint: string;
  /** The S3 server's environment with SNAPDECK_S3_ENDPOINT pointing at this proxy (for child processes). */
  env: Record<string, string>;
  /** A driver for a location, through this proxy. */
  open(location: string, options?: S3DriverOptions): S3Driver;
  /** Resets every matching request's connection for `ms`. */
  failFor(ms: number, options?: Omit<FaultOptions, 'forMs'>): void;
  /** Resets one matching request in `n` at random (n ≥ 1; 1: every one). */
  failOneIn(n: number, options?: FaultOptions): void;
  /** A matching response's body takes `ms` to arrive. */
  slow(match: Match | undefined, ms: number, options?: { forMs?: number }): void;
  /** A matching request waits `ms` before being forwarded. */
  delay(match: Match | undefined, ms: number, options?: { forMs?: number }): void;
  freeze(): void;
  unfreeze(): void;
  /** Every fault off; frozen requests go on. The request log is kept. */
  clear(): void;
  /** Counts since the start (or resetStats()). */
  stats: { requests: number; failed: number; slowed: number; delayed: number };
  resetStats(): void;
  /** The last requests seen (at most 10,000), oldest first. */
  requests: ProxiedRequest[];
  stop(): Promise<void>;
}

interface Fault extends FaultOptions {
  kind: 'fail' | 'random' | 'slow' | 'delay';
  n?: number;
  ms?: number;
  until?: number;
}

/** A small seeded generator (mulberry32): the same seed, the same choices. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function matches(match: Match | undefined, method: string, path: string): boolean {
  if (match === undefined) return true;
  if (typeof match === 'string') return path.includes(match);
  if (match instanceof RegExp) return match.test(path);
  return match(method, path);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a proxy in front of `target` (an S3 test server, or anything with its endpoint and env). */
export async function startFaultProxy(target: { endpoint: string; env: Record<string, string> }, options: { seed?: number } = {}): Promise<FaultProxy> {
  const upstream = new URL(target.endpoint);
  const next = random(options.seed ?? Date.now());
  let faults: Fault[] = [];
  let frozen: Array<() => void> | null = null;
  const sockets = new Set<Socket>();
  const stats = { requests: 0, failed: 0, slowed: 0, delayed: 0 };
  const requests: ProxiedRequest[] = [];
  const record = (entry: ProxiedRequest) => {
    requests.push(entry);
    if (requests.length > 10_000) requests.splice(0, requests.length - 10_000);
  };

  const active = (method: string, path: string) => {
    const now = Date.now();
    faults = faults.filter((fault) => fault.until === undefined || fault.until > now);
    return faults.filter((fault) => matches(fault.match, method, path));
  };
  const failing = (list: Fault[], phase: 'request' | 'response') =>
    list.some((fault) => (fault.phase ?? 'request') === phase && (fault.kind === 'fail' || (fault.kind === 'random' && next() * fault.n! < 1)));

  /** An abrupt end: the client sees ECONNRESET (a TCP reset), as from a dropped connection. */
  const reset = (res: ServerResponse) => {
    const socket = res.socket;
    if (socket && !socket.destroyed) socket.resetAndDestroy();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const path = decodeURIComponent(req.url ?? '/');
    const at = Date.now();
    stats.requests += 1;
    if (frozen) await new Promise<void>((resolve) => frozen ? frozen.push(resolve) : resolve());
    let list = active(method, path);
    const held = Math.max(0, ...list.filter((fault) => fault.kind === 'delay').map((fault) => fault.ms!));
    if (held > 0) {
      stats.delayed += 1;
      await sleep(held);
      list = active(method, path);
    }
    if (failing(list, 'request')) {
      stats.failed += 1;
      record({ at, method, path, outcome: 'failed' });
      req.resume();
      reset(res);
      return;
    }
    const body: Buffer[] = [];
    for await (const chunk of req) body.push(chunk as Buffer);
    const answer = await new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer } | Error>((resolve) => {
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method, path: req.url, headers: req.headers },
        (upstreamRes) => {
          const chunks: Buffer[] = [];
          upstreamRes.on('data', (chunk: Buffer) => chunks.push(chunk));
          upstreamRes.on('end', () => resolve({ status: upstreamRes.statusCode ?? 502, headers: upstreamRes.headers, body: Buffer.concat(chunks) }));
          upstreamRes.on('error', resolve);
        },
      );
      forward.on('error', resolve);
      forward.end(Buffer.concat(body));
    });
    if (answer instanceof Error) {
      record({ at, method, path, outcome: 'upstream-error' });
      reset(res);
      return;
    }
    if (failing(active(method, path), 'response')) {
      stats.failed += 1;
      record({ at, method, path, outcome: 'failed' });
      reset(res);
      return;
    }
    const slowMs = Math.max(0, ...active(method, path).filter((fault) => fault.kind === 'slow').map((fault) => fault.ms!));
    res.writeHead(answer.status, answer.headers);
    if (slowMs === 0 || answer.body.length === 0) {
      record({ at, method, path, outcome: 'forwarded' });
      res.end(answer.body);
      return;
    }
    stats.slowed += 1;
    record({ at, method, path, outcome: 'slowed' });
    // Small chunks at a steady pace (one every 100 ms at most apart), the last one at `slowMs`.
    const steps = Math.max(1, Math.min(answer.body.length, Math.ceil(slowMs / 100)));
    const size = Math.ceil(answer.body.length / steps);
    const started = Date.now();
    for (let i = 0; i < steps; i++) {
      const wait = started + ((i + 1) * slowMs) / steps - Date.now();
      if (wait > 0) await sleep(wait);
      if (res.destroyed) return;
      res.write(answer.body.subarray(i * size, (i + 1) * size));
    }
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => reset(res));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const env = { ...target.env, SNAPDECK_S3_ENDPOINT: endpoint };
  const add = (fault: Fault, forMs?: number) => {
    faults.push({ ...fault, until: forMs === undefined ? undefined : Date.now() + forMs });
  };
  const release = () => {
    const waiting = frozen ?? [];
    frozen = null;
    for (const go of waiting) go();
  };

  return {
    endpoint,
    env,
    open: (location, extra = {}) => new S3Driver(location, { ...s3OptionsFromEnv(env), ...extra }),
    failFor: (ms, opts = {}) => add({ ...opts, kind: 'fail' }, ms),
    failOneIn: (n, opts = {}) => {
      if (!(n >= 1)) throw new Error(`failOneIn: n must be at least 1, got ${n}`);
      add({ ...opts, kind: 'random', n }, opts.forMs);
    },
    slow: (match, ms, opts = {}) => add({ match, kind: 'slow', ms }, opts.forMs),
    delay: (match, ms, opts = {}) => add({ match, kind: 'delay', ms }, opts.forMs),
    freeze: () => {
      frozen ??= [];
    },
    unfreeze: release,
    clear: () => {
      faults = [];
      release();
    },
    stats,
    resetStats: () => Object.assign(stats, { requests: 0, failed: 0, slowed: 0, delayed: 0 }),
    requests,
    async stop() {
      faults = [];
      release();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
