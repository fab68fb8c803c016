import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, type ErrorCode } from '@snapdeck/contract';
import type { Logger } from 'pino';
import { CACHE } from './cache-policy.ts';
import { errorBody } from './response.ts';
import { SECURITY_HEADERS } from '../middleware/common-headers.ts';

/**
 * Requests Node's HTTP parser refuses before the app sees them — a request line and headers over
 * the 16 KiB limit (HPE_HEADER_OVERFLOW), or bytes that are not HTTP — would get Node's bare
 * answer (`431` or `400` with no body and none of the contract's headers). They get the
 * contract's error instead: JSON `{error}`, nosniff and CORS, no-store, then the connection closes.
 */
export function answerClientErrors(server: Server, log: Logger): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A peer that went away needs no answer.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const code: ErrorCode = err.code === 'HPE_HEADER_OVERFLOW' ? 'headersTooLarge' : 'badRequest';
    log.info({ code: err.code }, 'request refused by the HTTP parser');
    const status = ERROR_STATUS[code];
    const body = errorBody(code);
    const headers = {
      ...SECURITY_HEADERS,
      'Content-Type': 'application/json',
      'Cache-Control': CACHE.error,
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
  });
}
