import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build } from '@snapdeck/snapshot';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';

const CARDS = 4000;
const HITS_PER_PAGE = 1000;
const REQUESTS = 20;

let dir: string;
let cleanup: () => Promise<void>;
let gateway: CliGateway | undefined;
let key: string;

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
  it('finishes every in-flight request with 200, refuses new connections, then exits 0', async () => {
    gateway = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db')]);
    const port = Number(new URL(gateway.url).port);

    // 20 concurrent requests for large pages (about 1.5 MB each); their bodies stay unread.
    const inFlight = await Promise.all(
      Array.from({ length: REQUESTS }, (_, i) => startRequest(`${gateway!.url}/v1/games/digimon/cards?hitsPerPage=${HITS_PER_PAGE}`)),
    );
    expect(inFlight.map((p) => p.response.statusCode)).toEqual(Array(REQUESTS).fill(200));

    gateway.child.kill('SIGTERM');

    // The listener closes: a new connection is refused while the old responses are still unread.
    let state = 'connected';
    for (let i = 0; i < 100 && state === 'connected'; i++) {
      state = await tryConnect(port);
      if (state === 'connected') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(state).toBe('ECONNREFUSED');

    // Now read: every response arrives whole.
    for (const p of inFlight) p.response.resume();
    const bodies = await Promise.all(inFlight.map((p) => p.body));
    for (const body of bodies) {
      const page = JSON.parse(body.toString('utf8'));
      expect(page.data.hits).toHaveLength(HITS_PER_PAGE);
    }
    expect(await gateway.exited).toBe(0);
    expect(gateway.output().stderr).toContain('SIGTERM: finishing in-flight requests');
  });
});
