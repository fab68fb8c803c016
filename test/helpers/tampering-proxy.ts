import { createHash } from 'node:crypto';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What code that a test planted fetches when it runs: the proxy counts these requests. */
export const MARKER_PATH = '/__marker';

/** A replacement body for a response (undefined: forwarded as the upstream sent it). */
export type Tamper = (path: string, body: Buffer) => Buffer | string | undefined;

export interface TamperingProxy {
  /** The proxy's origin, http://127.0.0.1:port. */
  url: string;
  /** Replaces the bodies of chosen responses (set it per scenario; null forwards everything). */
  tamper: Tamper | null;
  /** The path (and query) of every request the proxy received, marker requests included. */
  readonly requests: string[];
  /** The marker requests received (each one is planted code that ran). */
  markers(): string[];
  close(): Promise<void>;
}

/**
 * A reverse proxy on 127.0.0.1 in front of a gateway, as a CDN or a proxy between a partner and
 * the gateway would be: it forwards every request (asking for identity encoding, so that bodies
 * can be replaced), replaces the bodies `tamper` chooses, answers `pages` itself, and counts
 * requests to MARKER_PATH.
 */
export async function startTamperingProxy(upstream: string, pages: Record<string, { type: string; body: string | Uint8Array }> = {}): Promise<TamperingProxy> {
  const target = new URL(upstream);
  const requests: string[] = [];
  const proxy: TamperingProxy = {
    url: '',
    tamper: null,
    requests,
    markers: () => requests.filter((path) => path.startsWith(MARKER_PATH)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((incoming, outgoing) => {
    const path = incoming.url ?? '/';
    requests.push(path);
    if (path.startsWith(MARKER_PATH)) return outgoing.writeHead(204, { 'Access-Control-Allow-Origin': '*' }).end();
    const page = pages[path];
    if (page) return outgoing.writeHead(200, { 'Content-Type': page.type, 'Cache-Control': 'no-store' }).end(page.body);
    const headers = { ...incoming.headers, host: target.host, 'accept-encoding': 'identity' };
    const upstreamRequest = forward({ host: target.hostname, port: target.port, method: incoming.method, path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        const replaced = proxy.tamper?.(path.split('?')[0]!, body);
        const sent = replaced === undefined ? body : Buffer.from(replaced);
        const responseHeaders = { ...response.headers, 'content-length': String(sent.length) };
        // Replaced bytes get a tag of their own, never the original's.
        if (replaced !== undefined && responseHeaders.etag !== undefined) responseHeaders.etag = `"${createHash('sha256').update(sent).digest('hex').slice(0, 32)}"`;
        outgoing.writeHead(response.statusCode ?? 502, responseHeaders).end(sent);
      });
    });
    upstreamRequest.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(upstreamRequest);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

/** A script's text with a first line that fetches the proxy's marker path (`name` in its query) when it runs. */
export const withMarker = (name: string, script: Buffer): string => `fetch(${JSON.stringify(`${MARKER_PATH}?${name}`)});\n${script.toString('utf8')}`;
