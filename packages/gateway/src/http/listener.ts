import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { RequestError, getRequestListener } from '@hono/node-server';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import type { Logger } from 'pino';
import { requestIdOf } from './base-headers.ts';
import { answerClientErrors, preRoutingAnswer } from './client-error.ts';

type FetchCallback = Parameters<typeof getRequestListener>[0];

/** A dropped connection is logged at most this often while the limit is being hit. */
const DROP_LOG_INTERVAL_MS = 60_000;

export interface HttpServerOptions {
  /** Passed to the adapter: the host name of a request without a Host (HTTP/1.0). */
  hostname: string;
  log: Logger;
  /** Connections beyond this many open ones are closed as soon as they are accepted. */
  maxConnections: number;
}

/**
 * The gateway's HTTP server, with every answer it writes itself — before the app, instead of it —
 * in the contract's JSON with the common headers (client-error.ts), and slow clients bounded
 * (decisions.md "Errors and precedence"): headers within OPERATOR_DEFAULTS.headersTimeoutMs and the
 * whole request within requestTimeoutMs of its first byte, else 408 and the connection closes.
 * Node checks those deadlines every connectionsCheckingInterval (30 s by default, which let partial
 * headers hold a socket ~84 s); OPERATOR_DEFAULTS.timeoutCheckMs bounds how late a cut comes.
 */
export function createHttpServer(fetch: FetchCallback, options: HttpServerOptions): Server {
  const { log } = options;
  // Each socket's latest response: once its head is out, a parser error may not write raw bytes.
  const responses = new WeakMap<object, ServerResponse>();
  // The request the adapter is refusing, for its request id: the adapter calls errorHandler
  // synchronously from inside the listener call below, before its first await.
  let refusing: IncomingMessage | undefined;
  const adapter = getRequestListener(fetch, {
    hostname: options.hostname,
    // The adapter's own refusals (a malformed Host, a request target that is not a path such as
    // `OPTIONS *`, a backslash in the path) would be a bare 400; errors thrown by the app itself
    // are answered by the app (router.ts), so anything else here is a defect: a JSON 500.
    errorHandler: (error) => {
      const code = error instanceof RequestError ? 'badRequest' : 'internal';
      const requestId = requestIdOf(refusing?.headers['x-request-id']);
      if (code === 'internal') log.error({ err: error, requestId }, 'request failed before reaching the app');
      else log.info({ reason: (error as Error).message, requestId }, 'request refused before routing');
      const { status, headers, body } = preRoutingAnswer(code, requestId);
      return new Response(body, { status, headers });
    },
  });
  const server = createServer(
    {
      headersTimeout: OPERATOR_DEFAULTS.headersTimeoutMs,
      requestTimeout: OPERATOR_DEFAULTS.requestTimeoutMs,
      connectionsCheckingInterval: OPERATOR_DEFAULTS.timeoutCheckMs,
      keepAliveTimeout: OPERATOR_DEFAULTS.keepAliveTimeoutMs,
      // Node's own check answers a bare 400; the listener answers it as the contract says.
      requireHostHeader: false,
    },
    (incoming, outgoing) => {
      responses.set(incoming.socket, outgoing);
      // RFC 9112 3.2: an HTTP/1.1 request without Host is answered 400.
      if (incoming.httpVersion === '1.1' && incoming.headers.host === undefined) {
        const requestId = requestIdOf(incoming.headers['x-request-id']);
        log.info({ reason: 'no Host header', requestId }, 'request refused before routing');
        const { status, headers, body } = preRoutingAnswer('badRequest', requestId, true);
        outgoing.writeHead(status, headers).end(body);
        return;
      }
      refusing = incoming;
      try {
        return adapter(incoming, outgoing);
      } finally {
        refusing = undefined;
      }
    },
  );
  server.maxConnections = options.maxConnections;
  let droppedSinceLog = 0;
  let lastDropLog = 0;
  server.on('drop', () => {
    droppedSinceLog++;
    const now = Date.now();
    if (now - lastDropLog < DROP_LOG_INTERVAL_MS) return;
    log.warn({ maxConnections: options.maxConnections, dropped: droppedSinceLog }, 'connections refused: the connection limit is reached (serve --max-connections)');
    lastDropLog = now;
    droppedSinceLog = 0;
  });
  answerClientErrors(server, log, responses);
  return server;
}
