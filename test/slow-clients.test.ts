/**
 * Slow clients (decisions.md "Errors and precedence"): slow clients are bounded, and every answer
 * the gateway's process writes — those decided before routing too — is JSON with the common
 * headers. Raw sockets (node:net) against a real gateway, at the contract's timeouts (headers 10 s,
 * whole request 30 s): the waits are real, so the timed cases run concurrently. Margins are wide
 * for a loaded machine; `npm run bench:hostile` measures the figures against the targets.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { startCliGateway } from './helpers/cli-gateway.ts';
import { startDeckEnv, type DeckTestEnv } from './helpers/decks.ts';

let env: DeckTestEnv;
let port: number;

beforeAll(async () => {
  env = await startDeckEnv({ gundam: 5 });
  port = Number(new URL(env.gateway.url).port);
}, 120_000);

afterAll(async () => {
  await env?.close();
});

interface RawExchange {
  socket: Socket;
  /** Resolves once the gateway has closed the connection: what it sent, and when (ms after connect). */
  closed: Promise<{ text: string; afterMs: number }>;
}

/** A raw connection to `at`; `onConnect` writes whatever the case needs. */
function open(at: number, onConnect: (socket: Socket) => void = () => {}): RawExchange {
  const started = Date.now();
  const socket = connect(at, '127.0.0.1', () => onConnect(socket));
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  const closed = new Promise<{ text: string; afterMs: number }>((resolve) => {
    socket.once('close', () => resolve({ text, afterMs: Date.now() - started }));
  });
  socket.on('error', () => {}); // a reset also ends the exchange (close follows)
  return { socket, closed };
}

/** The first complete answer on the connection (by its Content-Length), or what came before it closed. */
function firstAnswer(exchange: RawExchange, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no complete answer within ${timeoutMs} ms: ${JSON.stringify(text)}`)), timeoutMs);
    const done = () => {
      clearTimeout(timer);
      resolve(text);
    };
    exchange.socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      if (end !== -1 && length && text.length >= end + 4 + Number(length[1])) done();
    });
    void exchange.closed.then(done);
  });
}

/** Writes `bytes` one at a time, every `everyMs`, until the socket closes. */
function trickle(socket: Socket, bytes: string, everyMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= bytes.length) return clearInterval(timer);
    socket.write(bytes[at++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

interface ParsedAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** How many status lines the bytes hold (one answer, never two). */
  answers: number;
}

function parse(text: string): ParsedAnswer {
  const [head = '', body = ''] = text.split('\r\n\r\n', 2);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body, answers: text.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0 };
}

/** The contract's error with the common headers (decisions.md), and nothing after it. */
function expectContractError(answer: ParsedAnswer, status: number, error: string, requestId?: string): void {
  expect(answer.status).toBe(status);
  expect(answer.answers).toBe(1);
  expect(answer.headers.get('content-type')).toBe('application/json');
  expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  expect(answer.headers.get('cache-control')).toBe('no-store');
  if (requestId) expect(answer.headers.get('x-request-id')).toBe(requestId);
  else expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(JSON.parse(answer.body)).toEqual({ error });
}

const HEADERS_S = OPERATOR_DEFAULTS.headersTimeoutMs / 1000;
const REQUEST_S = OPERATOR_DEFAULTS.requestTimeoutMs / 1000;

describe.concurrent('slow clients are cut at the contract\'s timeouts, with a JSON 408', () => {
  it(`headers trickled one byte every 2 s: 408 Request timeout at ${HEADERS_S} s, connection closed`, async () => {
    const slow = open(port, (socket) => {
      socket.write('GET /v1/games HTTP/1.1\r\nHost: x\r\n');
      trickle(socket, `X-Slow: ${'a'.repeat(100)}`, 2000);
    });
    const { text, afterMs } = await slow.closed;
    expectContractError(parse(text), 408, ERRORS.requestTimeout);
    expect(afterMs).toBeGreaterThanOrEqual(HEADERS_S * 1000 - 500);
    expect(afterMs).toBeLessThan(HEADERS_S * 1000 + 5000);
  }, 60_000);

  it(`a body trickled one byte a second: 408 Request timeout ${REQUEST_S} s after the request began, one answer only`, async () => {
    const body = JSON.stringify({ ids: ['3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b'] });
    const slow = open(port, (socket) => {
      socket.write(`POST /v1/decks/details HTTP/1.1\r\nHost: x\r\nX-API-Key: ${env.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      trickle(socket, body.slice(0, -1), 1000);
    });
    const { text, afterMs } = await slow.closed;
    expectContractError(parse(text), 408, ERRORS.requestTimeout);
    expect(afterMs).toBeGreaterThanOrEqual(REQUEST_S * 1000 - 500);
    expect(afterMs).toBeLessThan(REQUEST_S * 1000 + 5000);
    // The gateway goes on serving.
    expect((await fetch(`${env.gateway.base}/games`, { headers: { 'X-API-Key': env.key } })).status).toBe(200);
  }, 90_000);

  it(`a connection that sends nothing is closed at ${HEADERS_S} s, without an answer (it asked nothing)`, async () => {
    const idle = open(port);
    const { text, afterMs } = await idle.closed;
    expect(text).toBe('');
    expect(afterMs).toBeGreaterThanOrEqual(HEADERS_S * 1000 - 500);
    expect(afterMs).toBeLessThan(HEADERS_S * 1000 + 5000);
  }, 60_000);
});

describe('requests refused before routing get JSON with the common headers', () => {
  const cases: Array<[string, string, number, string, string?]> = [
    ['no Host (HTTP/1.1)', 'GET /v1/games HTTP/1.1\r\nX-Request-Id: no-host-1\r\n\r\n', 400, ERRORS.badRequest, 'no-host-1'],
    ['a malformed Host', 'GET /v1/games HTTP/1.1\r\nHost: evil/x\r\nX-Request-Id: bad-host-1\r\n\r\n', 400, ERRORS.badRequest, 'bad-host-1'],
    ['a Host with a user-info', 'GET /v1/games HTTP/1.1\r\nHost: a@b\r\n\r\n', 400, ERRORS.badRequest],
    ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\nX-Request-Id: star-1\r\n\r\n', 400, ERRORS.badRequest, 'star-1'],
    ['a path with a backslash', 'GET /v1\\games HTTP/1.1\r\nHost: x\r\n\r\n', 400, ERRORS.badRequest],
    ['a header line without a colon', 'GET /v1/games HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, ERRORS.badRequest],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n', 400, ERRORS.badRequest],
    ['headers over 16 KiB', `GET /v1/games HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(17_000)}\r\n\r\n`, 431, ERRORS.headersTooLarge],
  ];
  it.each(cases)('%s', async (_name, request, status, error, requestId) => {
    const exchange = open(port, (socket) => socket.write(request));
    const text = await firstAnswer(exchange);
    exchange.socket.destroy();
    expectContractError(parse(text), status, error, requestId);
  });
});

describe('--max-connections', () => {
  it('refuses connections beyond the limit at once, and serves again once under it', async () => {
    const gateway = await startCliGateway(['--snapshots', env.snapshots, '--db', env.dbFile, '--max-connections', '3']);
    try {
      expect(gateway.output().stderr).toContain('max connections: 3');
      const gatewayPort = Number(new URL(gateway.url).port);
      // Three connections mid-request hold the three places.
      const held = [0, 1, 2].map(() => open(gatewayPort, (socket) => socket.write('GET /v1/games HTTP/1.1\r\n')));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const refused = open(gatewayPort, (socket) => socket.write('GET /v1/games HTTP/1.1\r\nHost: x\r\n\r\n'));
      const { text, afterMs } = await refused.closed;
      expect(text).toBe('');
      expect(afterMs).toBeLessThan(2000);
      for (const h of held) h.socket.destroy();
      await Promise.all(held.map((h) => h.closed));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const response = await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': env.key } });
      expect(response.status).toBe(200);
    } finally {
      await gateway.stop();
    }
  }, 60_000);

  it('has a default sized to the open-file limit, shown on the startup line', async () => {
    const gateway = await startCliGateway(['--snapshots', env.snapshots, '--db', env.dbFile]);
    try {
      const shown = Number(/max connections: (\d+)/.exec(gateway.output().stderr)?.[1]);
      const limit = Number(/^Max open files\s+(\d+)/m.exec(await import('node:fs').then((fs) => fs.readFileSync(`/proc/${gateway.child.pid}/limits`, 'utf8')))?.[1]);
      expect(shown).toBe(Math.max(1, Math.min(OPERATOR_DEFAULTS.maxConnectionsCap, limit - OPERATOR_DEFAULTS.fdReserve)));
    } finally {
      await gateway.stop();
    }
  }, 60_000);
});

describe('SIGTERM with a client trickling its headers', () => {
  it(`exits once the client is cut at ${HEADERS_S} s, not when the client stops`, async () => {
    const gateway = await startCliGateway(['--snapshots', env.snapshots, '--db', env.dbFile]);
    const gatewayPort = Number(new URL(gateway.url).port);
    // An idle keep-alive connection too: closed at once, not after the 65 s keep-alive timeout.
    const idle = open(gatewayPort, (socket) => socket.write(`GET /v1/games HTTP/1.1\r\nHost: x\r\nX-API-Key: ${env.key}\r\n\r\n`));
    const slow = open(gatewayPort, (socket) => {
      socket.write('GET /v1/games HTTP/1.1\r\nHost: x\r\n');
      trickle(socket, `X-Slow: ${'a'.repeat(200)}`, 2000);
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const signalled = Date.now();
    gateway.child.kill('SIGTERM');
    const code = await Promise.race([gateway.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), HEADERS_S * 1000 + 10_000))]);
    const exitedAfterMs = Date.now() - signalled;
    await gateway.stop(1000);
    expect(code).toBe(0);
    expect(exitedAfterMs).toBeLessThan(HEADERS_S * 1000 + 5000);
    const idleEnd = await idle.closed;
    expect(parse(idleEnd.text).status).toBe(200);
    expectContractError(parse((await slow.closed).text), 408, ERRORS.requestTimeout);
  }, 60_000);
});
