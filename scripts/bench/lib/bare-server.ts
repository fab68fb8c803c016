/**
 * The baseline: a bare node:http server answering every request with the same response from
 * memory: the body, and the headers in a JSON file (the gateway's own, captured from it, or just
 * Content-Type and Content-Encoding). Node adds Date, Connection, Keep-Alive and Content-Length.
 *
 * PACE_US (optional, default 0): CPU time, in µs, spent on each request before it is answered (a
 * busy wait). A bare server paced to the gateway's rate makes the load generator wait for its
 * answers as long as the gateway does: bench:hotpath uses it to show what a slower server pays in
 * the kernel for waking the load generator (docs/benchmarks.md, "the load generator's wake-ups").
 *
 * Usage: tsx bare-server.ts PORT BODY_FILE HEADERS_JSON_FILE [PACE_US]
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [portText, bodyFile, headersFile, paceText] = process.argv.slice(2);
const body = readFileSync(bodyFile!);
const headers: Record<string, string | number> = { ...JSON.parse(readFileSync(headersFile!, 'utf8')), 'Content-Length': body.length };
const paceMs = Number(paceText ?? 0) / 1000;
const server = createServer((_req, res) => {
  if (paceMs > 0) for (const until = performance.now() + paceMs; performance.now() < until; );
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(portText), '127.0.0.1', () => process.send?.('ready'));
