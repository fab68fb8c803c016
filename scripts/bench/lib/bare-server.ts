/**
 * The baseline: a bare node:http server answering every request with the same bytes from memory.
 * Usage: tsx bare-server.ts PORT BODY_FILE CONTENT_ENCODING(identity|br|gzip)
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [portText, bodyFile, encoding] = process.argv.slice(2);
const body = readFileSync(bodyFile!);
const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': body.length };
if (encoding && encoding !== 'identity') headers['Content-Encoding'] = encoding;
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(portText), '127.0.0.1', () => process.send?.('ready'));
