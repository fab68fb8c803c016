/** What bench:search measures on one built location: bytes and requests per query, latency (recall: recall.ts). */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { SnapdeckClient } from '@snapdeck/client';
import type { GameSlug } from '@snapdeck/contract';

/** A proxy in front of the gateway counting requests and the bytes of response bodies as sent (compressed). */
export interface CountingProxy {
  url: string;
  requests: number;
  bytes: number;
  close(): Promise<void>;
}

export async function countingProxy(target: string): Promise<CountingProxy> {
  const { hostname, port } = new URL(target);
  const state = { requests: 0, bytes: 0 };
  const server: Server = createServer((req, res) => {
    state.requests += 1;
    const upstream = httpRequest({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.on('data', (chunk: Buffer) => (state.bytes += chunk.length));
      answer.pipe(res);
    });
    upstream.on('error', (error) => (res.headersSent ? res.destroy(error) : res.writeHead(502).end(String(error))));
    req.pipe(upstream);
  });
  // Longer than the client's idle sockets live: under load, a socket closed by the server as the
  // client reuses it reset the run's fetch (ECONNRESET) once.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    get requests() { return state.requests; },
    get bytes() { return state.bytes; },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  } as CountingProxy;
}

/** A browser-like client: brotli accepted (Node's fetch sends `gzip, deflate, br`). */
export function clientFor(proxy: CountingProxy): SnapdeckClient {
  return new SnapdeckClient({ baseUrl: `${proxy.url}/v1` });
}

/** Bytes and requests of a cold client's first query (open the index, search, the top hits' data). */
export async function firstQuery(proxy: CountingProxy, game: GameSlug, query: string): Promise<{ bytes: number; requests: number; ms: number }> {
  const [bytes0, requests0] = [proxy.bytes, proxy.requests];
  const started = performance.now();
  const index = await clientFor(proxy).searchIndex(game);
  await index.search(query, { limit: 10 });
  return { bytes: proxy.bytes - bytes0, requests: proxy.requests - requests0, ms: performance.now() - started };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}


/** Peak RSS (KiB) of a process and all its descendants, sampled every 100 ms until it exits; and its stdout. */
export async function runSampled(command: string, args: string[]): Promise<{ stdout: string; peakTreeKiB: number; code: number | null }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
  let peak = 0;
  const treeRss = (pid: number): number => {
    let kib = 0;
    try {
      kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      for (const task of readdirSync(`/proc/${pid}/task`)) {
        for (const c of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) kib += treeRss(Number(c));
      }
    } catch {
      // exited between the reads
    }
    return kib;
  };
  const timer = setInterval(() => (peak = Math.max(peak, treeRss(child.pid!))), 100);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearInterval(timer);
  return { stdout, peakTreeKiB: peak, code };
}
