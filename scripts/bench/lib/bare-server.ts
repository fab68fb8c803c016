/**
 * The baseline: a bare node:http server answering every request with the same response from
 * memory: the body, and the headers in a JSON file (the gateway's own, captured from it, or just
 * Content-Type and Content-Encoding). Node adds Date, Connection, Keep-Alive and Content-Length.
 * Usage: tsx bare-server.ts PORT BODY_FILE HEADERS_JSON_FILE
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [portText, bodyFile, headersFile] = process.argv.slice(2);
const body = readFileSync(bodyFile!);
const headers: Record<string, string | number> = { ...JSON.parse(readFileSync(headersFile!, 'utf8')), 'Content-Length': body.length };
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(portText), '127.0.0.1', () => process.send?.('ready'));
