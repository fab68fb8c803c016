import { request } from 'node:http';
import type { RawResponse } from './varnish-server.ts';

/**
 * One request whose request-target is sent exactly as given (`curl --path-as-is`): `/x/../metrics`,
 * `/%2e/metrics`, `//metrics`, `http://host/path`. fetch() and http.request(url) parse the URL
 * first, which resolves dot segments, so they cannot send these.
 */
export function requestTarget(
  origin: string,
  target: string,
  options: { method?: string; headers?: Record<string, string | string[]>; localAddress?: string } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: target, method: options.method ?? 'GET', headers: options.headers, localAddress: options.localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A gateway's answered requests by route pattern ('unmatched' included), from its /metrics. */
export async function requestsByRoute(gatewayUrl: string): Promise<Map<string, number>> {
  const text = (await requestTarget(gatewayUrl, '/metrics')).body.toString();
  const counts = new Map<string, number>();
  for (const [, labels, count] of text.matchAll(/^snapdeck_http_requests_total\{([^}]*)\} (\d+)$/gm)) {
    const route = /route="([^"]*)"/.exec(labels!)?.[1] ?? '';
    counts.set(route, (counts.get(route) ?? 0) + Number(count));
  }
  return counts;
}
