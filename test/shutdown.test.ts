import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli, startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

/**
 * SIGTERM per decisions.md "Running it": /readyz 503 at once, requests still served for the drain
 * (--drain-ms), then no new connections, in-flight requests finished, and exit within
 * --shutdown-timeout whatever storage does (storage frozen: moto SIGSTOPped).
 */

const CARDS = 4000;
const HITS_PER_PAGE = 1000;
const REQUESTS = 20;

let dir: string;
let cleanup: () => Promise<void>;
const DRAIN_MS = 1500;
let gateway: CliGateway | undefined;
let key: string;
let s3: S3TestServer | undefined;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-shutdown-'));
  await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: CARDS });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1] });
  const db = openDatabase(join(dir, 'snapdeck.db'));
  try {
    key = new KeyStore(db).create({ name: 'shutdown', quota: 1000 }).key;
  } finally {
    db.close();
  }
});

afterAll(async () => {
  await gateway?.stop(2000);
  s3?.resume();
  await s3?.stop();
  await cleanup?.();
});

interface Pending {
  response: IncomingMessage;
  /** Resolves with the whole body once the response is read (after resume()). */
  body: Promise<Buffer>;
}

/**
 * A GET on a connection of its own (no keep-alive), resolved as soon as the response headers
 * arrive: the server has the request and is answering it. The body is left unread (paused) so
 * the response stays in flight until the test resumes it.
 */
function startRequest(url: string): Promise<Pending> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { 'X-API-Key': key, Connection: 'close' } }, (response) => {
      response.pause();
      const chunks: Buffer[] = [];
      const body = new Promise<Buffer>((done, fail) => {
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('end', () => done(Buffer.concat(chunks)));
        response.once('error', fail);
        response.once('aborted', () => fail(new Error('response aborted')));
      });
      resolve({ response, body });
    });
    req.once('error', reject);
    req.end();
  });
}

/** GET on a fresh connection: status and elapsed time (ms), or the error's code. */
async function timedGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number | string; ms: number }> {
  const started = Date.now();
  try {
    const response = await fetch(url, { headers: { ...headers, Connection: 'close' } });
    await response.arrayBuffer();
    return { status: response.status, ms: Date.now() - started };
  } catch (error) {
    return { status: ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? (error as Error).message, ms: Date.now() - started };
  }
}

/** Resolves once the gateway says it has taken the signal (a signal reaches its event loop a moment after kill()). */
const signalTaken = (gateway: CliGateway) => waitFor(async () => gateway.output().stderr.includes('SIGTERM: not ready (/readyz 503)'), 5000, 'no SIGTERM line');

/** Resolves with the connection error code ('ECONNREFUSED'), or 'connected'. */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('snapdeck serve: graceful shutdown on SIGTERM', () => {
  it('drain and shutdown timeout: defaults 5 s and 25 s, shown in --help with their environment variables', async () => {
    expect(OPERATOR_DEFAULTS.drainMs).toBe(5000);
    expect(OPERATOR_DEFAULTS.shutdownTimeoutSeconds).toBe(25);
    const help = (await runCli(['serve', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toMatch(/--drain-ms <n> .*\(default: 5000, env: SNAPDECK_DRAIN_MS\)/);
    expect(help).toMatch(/--shutdown-timeout <seconds> .*\(default: 25, env: SNAPDECK_SHUTDOWN_TIMEOUT\)/);
  });

  it('/readyz 503 at once, new requests served during the drain, then refuses new connections, finishes every in-flight request with 200 and exits 0', async () => {
    gateway = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--drain-ms', String(DRAIN_MS)]);
    const port = Number(new URL(gateway.url).port);

    // 20 concurrent requests for large pages (about 1.5 MB each); their bodies stay unread.
    const inFlight = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) => startRequest(`${gateway!.url}/v1/games/digimon/cards?hitsPerPage=${HITS_PER_PAGE}`)),
    );
    expect(inFlight.map((p) => p.response.statusCode)).toEqual(Array(REQUESTS).fill(200));

    const signalled = Date.now();
    gateway.child.kill('SIGTERM');
    await signalTaken(gateway);

    // Not ready at once; a request is still answered while the balancer moves away.
    const readyz = await timedGet(`${gateway.url}/readyz`);
    const card = await timedGet(`${gateway.url}/v1/games/digimon/cards?hitsPerPage=1`, { 'X-API-Key': key });
    expect(readyz.status).toBe(503);
    expect(card.status).toBe(200);
    expect(Date.now() - signalled).toBeLessThan(DRAIN_MS);

    // After the drain the listener closes: a new connection is refused while the old responses are still unread.
    let state = 'connected';
    while (state === 'connected' && Date.now() - signalled < DRAIN_MS + 15_000) {
      state = await tryConnect(port);
      if (state === 'connected') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const refusedAfter = Date.now() - signalled;
    console.log(`SIGTERM: /readyz ${readyz.status} after ${readyz.ms} ms, a request ${card.status} during the drain, new connections refused after ${refusedAfter} ms (--drain-ms ${DRAIN_MS})`);
    expect(state).toBe('ECONNREFUSED');
    expect(refusedAfter).toBeGreaterThanOrEqual(DRAIN_MS);

    // Now read: every response arrives whole.
    for (const p of inFlight) p.response.resume();
    const bodies = await Promise.all(inFlight.map((p) => p.body));
    for (const body of bodies) {
      const page = JSON.parse(body.toString('utf8'));
      expect(page.data.hits).toHaveLength(HITS_PER_PAGE);
    }
    expect(await gateway.exited).toBe(0);
    expect(gateway.output().stderr).toContain('SIGTERM: not ready (/readyz 503)');
  });

  it('a request still in flight when the shutdown timeout runs out: its connection is closed and the exit code is 1, on time', async () => {
    const cut = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--drain-ms', '0', '--shutdown-timeout', '2']);
    try {
      // A request whose headers are still coming (the headers timeout, 10 s, is longer than the shutdown timeout).
      const socket = connect({ host: '127.0.0.1', port: Number(new URL(cut.url).port) });
      await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
      socket.write('GET /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.on('error', () => {});
      await new Promise((resolve) => setTimeout(resolve, 200));
      const signalled = Date.now();
      cut.child.kill('SIGTERM');
      const code = await cut.exited;
      const exitMs = Date.now() - signalled;
      console.log(`a request in flight: SIGTERM to exit ${(exitMs / 1000).toFixed(2)} s (code ${code}, --drain-ms 0, --shutdown-timeout 2)`);
      expect(code).toBe(1);
      expect(exitMs).toBeGreaterThanOrEqual(2000);
      expect(exitMs).toBeLessThan(6000);
      expect(cut.output().stderr).toContain('the shutdown timeout (2 s) ran out with requests in flight');
      await socketClosed;
    } finally {
      await cut.stop(2000);
    }
  });

  it('storage frozen, default drain and timeout: /readyz 503 at once, requests answered during the drain, exit 0 well within the 25 s shutdown timeout', async () => {
    s3 = await startS3Server();
    const catalogDir = join(dir, 'catalog-s3');
    const catalogs = await writeGeneratedCatalog(catalogDir, { digimon: 40, gundam: 10, 'grand-archive': 10, 'chrono-core': 10 });
    const snapshots = s3.newLocation('cards');
    const store = s3.newLocation('store');
    const env = s3.env;
    expect((await runCli(['build', '--catalog', catalogDir, '--out', snapshots], { env, timeoutMs: 120_000 })).code).toBe(0);
    const created = await runCli(['keys', 'create', '--name', 'frozen', '--db', join(dir, 'writer.db'), '--publish', store], { env });
    expect(created.code, created.stderr).toBe(0);
    const storeKey = created.stdout.trim();

    // The shipped defaults (drain 5 s, shutdown timeout 25 s, as decisions.md sets them), the drain from its environment variable.
    const timeoutS = OPERATOR_DEFAULTS.shutdownTimeoutSeconds;
    const drainMs = OPERATOR_DEFAULTS.drainMs;
    const frozen = await startCliGateway(['--snapshots', snapshots, '--store', store, '--store-poll-ms', '500'], {
      env: { ...env, SNAPDECK_DRAIN_MS: String(drainMs) },
    });
    try {
      await waitFor(async () => (await timedGet(`${frozen.url}/readyz`)).status === 200, 30_000, 'the gateway never became ready');
      s3.pause();
      // Uncached cards: these requests wait on frozen storage when SIGTERM comes.
      const ids = catalogs.digimon!.map((c) => c.id);
      const inFlight = ids.slice(0, 5).map((id) => timedGet(`${frozen.url}/v1/games/digimon/cards/${id}`, { 'X-API-Key': storeKey }));
      await new Promise((resolve) => setTimeout(resolve, 300));

      const signalled = Date.now();
      frozen.child.kill('SIGTERM');
      await signalTaken(frozen);
      const readyz = await timedGet(`${frozen.url}/readyz`);
      const health = await timedGet(`${frozen.url}/healthz`);
      const code = await frozen.exited;
      const exitMs = Date.now() - signalled;
      const answers = await Promise.all(inFlight);
      console.log(
        `storage frozen: SIGTERM to exit ${(exitMs / 1000).toFixed(2)} s (code ${code}; defaults: --shutdown-timeout ${timeoutS} s, --drain-ms ${drainMs}); ` +
          `/readyz ${readyz.status} after ${readyz.ms} ms; in-flight card requests: ${answers.map((a) => `${a.status} in ${(a.ms / 1000).toFixed(1)} s`).join(', ')}`,
      );
      expect(readyz.status).toBe(503);
      expect(readyz.ms).toBeLessThan(1000);
      expect(health.status).toBe(200);
      // Requests answered by the storage timeout during the drain, then at most shutdownReleaseMs for the storage clients: well within the timeout.
      expect(exitMs).toBeGreaterThanOrEqual(drainMs);
      expect(exitMs).toBeLessThan(timeoutS * 1000);
      expect(frozen.output().stderr).toContain(`exit within ${timeoutS} s`);
      // Every request was answered (500 after the storage timeout, as when storage is unreachable): exit 0.
      expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(500));
      expect(code).toBe(0);
      expect(frozen.output().stderr).toMatch(/SIGTERM: stopped after [\d.]+ s, every request answered \(closing the storage clients did not finish: storage gave no answer\)/);
    } finally {
      s3.resume();
      await frozen.stop(2000);
    }
  }, 180_000);
});
