import type { Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, type ErrorCode } from '@snapdeck/contract';
import type { Logger } from 'pino';
import { CACHE } from './cache-policy.ts';
import { errorBody } from './response.ts';
import { SECURITY_HEADERS, requestIdOf } from './base-headers.ts';

/**
 * An answer decided before any route (decisions.md: every answer the gateway's process writes is
 * JSON with the common headers): the contract's error, nosniff, CORS, a request id, no-store.
 */
export function preRoutingAnswer(code: ErrorCode, requestId: string, close = false): { status: number; headers: Record<string, string>; body: string } {
  const body = errorBody(code);
  return {
    status: ERROR_STATUS[code],
    body,
    headers: {
      ...SECURITY_HEADERS,
      'X-Request-Id': requestId,
      'Content-Type': 'application/json',
      'Cache-Control': CACHE.error,
      'Content-Length': String(Buffer.byteLength(body)),
      ...(close ? { Connection: 'close' } : {}),
    },
  };
}

/** What the HTTP parser reports, as the contract's error. */
function codeOf(err: NodeJS.ErrnoException): ErrorCode {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'requestTimeout';
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'headersTooLarge';
  return 'badRequest';
}

/**
 * Requests Node's HTTP server refuses before the app sees them would get Node's bare answer (no
 * body, none of the contract's headers): a request line and headers over the 16 KiB limit
 * (HPE_HEADER_OVERFLOW, 431), bytes that are not HTTP (400), and a request whose headers or body
 * did not arrive in time (ERR_HTTP_REQUEST_TIMEOUT, which Node's default turns into a bare 408 and
 * an earlier version of this handler into a 400). They get the contract's error instead, then the
 * connection closes (destroyed, not half-closed: a slow client must not keep the socket).
 *
 * `responses` holds each socket's latest response object (http/listener.ts): while one is being
 * sent, raw bytes would corrupt it, so the connection is only closed. A connection that timed
 * out without sending a byte made no request and is closed without an answer.
 */
export function answerClientErrors(server: Server, log: Logger, responses: WeakMap<object, ServerResponse>): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const response = responses.get(socket);
    const responding = response !== undefined && response.headersSent && !response.writableFinished;
    const silent = err.code === 'ECONNRESET' || !socket.writable || responding || (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && (socket as Socket).bytesRead === 0);
    if (silent) {
      socket.destroy();
      return;
    }
    const code = codeOf(err);
    const requestId = requestIdOf(undefined);
    log.info({ code: err.code, requestId }, code === 'requestTimeout' ? 'request timed out before it was complete' : 'request refused by the HTTP parser');
    const { status, headers, body } = preRoutingAnswer(code, requestId, true);
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`, () => socket.destroy());
  });
}
