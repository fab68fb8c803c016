/**
 * A purge lands after the gateways, end to end: a writer CLI publishes to S3
 * (moto), two `snapdeck serve --store` processes follow it, one of them behind the shipped Varnish
 * and reaching storage through a fault-injecting proxy that makes its decks download take 8 s.
 * While the writer makes a cached public deck private (`decks import --publish --purge`), a client
 * keeps asking the cache for it: no answer to a request sent after the PURGE may show the deck.
 * The PURGE goes through a small forwarder that notes when Varnish took it and what each gateway
 * served at that moment.
 */
import { createServer, request, type Server } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPointer } from '@snapdeck/snapshot';
import { storeLayout } from '@snapdeck/store';
import { buildGeneratedSnapshots } from './helpers/catalog.ts';
import { runCli, startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { deck, type LineDeck } from './helpers/deck-db.ts';
import { startFaultProxy, type FaultProxy } from './helpers/fault-proxy.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { freePort } from './helpers/processes.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { rawRequest, startVarnish, type VarnishTestServer } from './helpers/varnish-server.ts';

const DECKS_DOWNLOAD_MS = 8000;
const DECKS_PART = '_store/parts/decks/';

let s3: S3TestServer;
let proxy: FaultProxy;
let cache: VarnishTestServer;
let dir: string;
let cleanup: () => Promise<void>;
let location: string;
let writerDb: string;
/** [0]: behind Varnish, storage through the fault proxy; [1]: straight to moto. */
let gateways: CliGateway[] = [];
let forwarder: Server;
let purgeUrl: string;

interface PurgeSeen {
  /** When Varnish answered the PURGE (ms since the epoch). */
  doneAt: number;
  status: number;
  /** What each gateway served when the PURGE arrived: /readyz store block and the deck's status. */
  gateways: Array<{ version: string; decksVersion: string; deck: number }>;
}
const purges: PurgeSeen[] = [];
let watchedDeck = '';

const writer = (args: string[]) => runCli(args, { env: s3.env, timeoutMs: 120_000 });
const readyz = async (g: CliGateway) => (await (await fetch(`${g.url}/readyz`)).json()) as { store: { version: string; decksVersion: string } };
const deckStatus = async (base: string, id: string) => (await rawRequest(`${base}/v1/decks/${id}`, { headers: { 'Accept-Encoding': 'gzip' } })).status;
const gatewayId = async (name: string) => (await readFile(join(dir, name, 'gateway-id'), 'utf8')).trim();

async function importFile(name: string, decks: LineDeck[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, decks.map((d) => JSON.stringify(d)).join('\n') + '\n');
  return file;
}

/** Forwards a PURGE to Varnish, noting first what every gateway serves and then when Varnish answered. */
function startPurgeForwarder(): Promise<Server> {
  const server = createServer((req, res) => {
    void (async () => {
      const served = await Promise.all(
        gateways.map(async (g) => {
          const { version, decksVersion } = (await readyz(g)).store;
          return { version, decksVersion, deck: await deckStatus(g.url, watchedDeck) };
        }),
      );
      const answer = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
        const out = request(`${cache.url}/`, { method: 'PURGE', headers: { 'Surrogate-Key': String(req.headers['surrogate-key']) } }, (r) => {
          const chunks: Buffer[] = [];
          r.on('data', (c: Buffer) => chunks.push(c));
          r.on('end', () => resolve({ status: r.statusCode!, body: Buffer.concat(chunks) }));
        });
        out.on('error', reject);
        out.end();
      });
      purges.push({ doneAt: Date.now(), status: answer.status, gateways: served });
      res.writeHead(answer.status).end(answer.body);
    })().catch((error: unknown) => res.writeHead(502).end(String(error)));
    req.resume();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  s3 = await startS3Server();
  proxy = await startFaultProxy(s3);
  ({ dir, cleanup } = await tempDir('snapdeck-store-purge-'));
  const snapshots = await buildGeneratedSnapshots(dir, { digimon: 40, gundam: 10, 'grand-archive': 10, 'chrono-core': 10 });
  location = s3.newLocation('purge');
  writerDb = join(dir, 'writer.db');
  const first = await writer(['decks', 'import', await importFile('first.jsonl', Array.from({ length: 200 }, () => deck())), '--db', writerDb, '--publish', location]);
  expect(first.code, first.stderr).toBe(0);
  const serve = (cacheDir: string, env: Record<string, string>) =>
    startCliGateway(['--snapshots', snapshots, '--store', location, '--cache-dir', join(dir, cacheDir), '--store-poll-ms', '200'], { env });
  gateways = await Promise.all([serve('cache-slow', proxy.env), serve('cache-fast', s3.env)]);
  cache = await startVarnish({ backendPort: Number(new URL(gateways[0]!.url).port) });
  forwarder = await startPurgeForwarder();
  purgeUrl = `http://127.0.0.1:${(forwarder.address() as { port: number }).port}/`;
}, 120_000);

afterAll(async () => {
  forwarder?.close();
  await Promise.all(gateways.map((g) => g.stop()));
  await cache?.stop();
  await proxy?.stop();
  await s3?.stop();
  await cleanup?.();
});

describe('decks import --publish --purge with a gateway whose decks download takes 8 s', () => {
  it('sends the PURGE only once every gateway serves the deck as private: no answer after it shows the deck', async () => {
    const target = deck({ name: 'about to go private' });
    watchedDeck = target.id;
    const added = await writer(['decks', 'import', await importFile('public.jsonl', [target]), '--db', writerDb, '--publish', location]);
    expect(added.code, added.stderr).toBe(0);
    await waitFor(async () => (await Promise.all(gateways.map((g) => deckStatus(g.url, target.id)))).every((s) => s === 200), 20_000, 'deck not served');
    await deckStatus(cache.url, target.id);
    expect((await rawRequest(`${cache.url}/v1/decks/${target.id}`, { headers: { 'Accept-Encoding': 'gzip' } })).headers['x-cache']).toBe('HIT');

    proxy.slow(DECKS_PART, DECKS_DOWNLOAD_MS);
    // A client asking the cache (and, to show the window, the slow gateway itself) all along.
    const seen: Array<{ sentAt: number; via: 'cache' | 'gateway'; status: number }> = [];
    let asking = true;
    const client = (async () => {
      while (asking) {
        for (const [via, base] of [['cache', cache.url], ['gateway', gateways[0]!.url]] as const) {
          const sentAt = Date.now();
          seen.push({ sentAt, via, status: await deckStatus(base, target.id) });
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const started = Date.now();
    const hidden = await writer(['decks', 'import', await importFile('private.jsonl', [{ ...target, visibility: 'private' }]), '--db', writerDb, '--publish', location, '--purge', purgeUrl]);
    const returnedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    asking = false;
    await client;
    proxy.clear();

    expect(hidden.code, hidden.stderr).toBe(0);
    const version = (await readPointer(s3.open(location), storeLayout.pointer))!.version;
    const waited = /all 2 gateway\(s\) following \S+ serve (\S+) \(after ([\d.]+) s\)/.exec(hidden.stderr);
    expect(waited?.[1], hidden.stderr).toBe(version);
    expect(purges).toHaveLength(1);
    const purge = purges[0]!;
    expect(purge.status).toBe(200);
    // When the PURGE arrived, both gateways served the new decks and answered 404 for the deck.
    expect(purge.gateways).toEqual([
      { version, decksVersion: version, deck: 404 },
      { version, decksVersion: version, deck: 404 },
    ]);
    // The slow gateway's decks download took the 8 s, and the purge waited for it.
    const download = proxy.requests.find((r) => r.outcome === 'slowed' && r.path.includes(DECKS_PART));
    expect(download).toBeDefined();
    expect(purge.doneAt - download!.at).toBeGreaterThanOrEqual(DECKS_DOWNLOAD_MS - 200);
    // Meanwhile the slow gateway still showed the deck (what a purge at 5 s would have re-cached).
    expect(seen.some((s) => s.via === 'gateway' && s.sentAt > download!.at + 5000 && s.status === 200)).toBe(true);
    // No request sent after the PURGE got the deck, from the cache or from the gateway.
    const after = seen.filter((s) => s.sentAt > purge.doneAt);
    expect(after.length).toBeGreaterThan(20);
    expect(after.filter((s) => s.status !== 404)).toEqual([]);
    console.log(
      `purge-to-gateways delay with an ${DECKS_DOWNLOAD_MS / 1000} s decks download: the purge went ${waited![2]} s after the publish ` +
        `(${((purge.doneAt - download!.at) / 1000).toFixed(1)} s after the slow download began; command ${((returnedAt - started) / 1000).toFixed(1)} s in all)`,
    );
  }, 120_000);

  it('a gateway still behind at --purge-wait: the purge goes anyway, the command names it and exits 1; store status shows its lag', async () => {
    const [slowId, fastId] = [await gatewayId('cache-slow'), await gatewayId('cache-fast')];
    const target = deck({ name: 'slow to arrive' });
    watchedDeck = target.id;
    // Long enough that the gateway is still behind when `store status` runs after the command.
    proxy.slow(DECKS_PART, 20_000);
    purges.length = 0;
    const result = await writer(['decks', 'import', await importFile('lagging.jsonl', [target]), '--db', writerDb, '--publish', location, '--purge', purgeUrl, '--purge-wait', '4']);
    proxy.clear();
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('1 decks upserted');
    expect(purges).toHaveLength(1); // sent all the same
    const version = (await readPointer(s3.open(location), storeLayout.pointer))!.version;
    expect(result.stderr).toContain(`1 of 2 gateway(s) did not serve ${version} within --purge-wait 4 s; purging now`);
    expect(result.stderr).toContain('and the cache was purged, but not every gateway served');
    expect(result.stderr).toMatch(new RegExp(`${slowId} on \\S+ \\(pid \\d+\\) serves ${version}, decks of \\S+, as of`));
    expect(result.stderr).not.toContain(fastId);
    expect(result.stderr).toContain(`once every gateway serves ${version} (npx snapdeck store status --at ${location})`);
    expect(result.stderr).toContain(`curl -X PURGE -H 'Surrogate-Key: deck:${target.id}' ${purgeUrl}`);

    const status = await writer(['store', 'status', '--at', location]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`store at ${location}: version ${version}`);
    expect(status.stdout).toMatch(new RegExp(`^${slowId} .* decks [\\d.]+ s behind .* live$`, 'm'));
    expect(status.stdout).toMatch(new RegExp(`^${fastId} .* ${version} +${version} +none .* live$`, 'm'));
    // It catches up; a gateway that stops removes its record.
    await waitFor(async () => (await readyz(gateways[0]!)).store.decksVersion === version, 40_000, 'the slow gateway did not catch up');
    await gateways[1]!.stop();
    await waitFor(async () => !(await writer(['store', 'status', '--at', location])).stdout.includes(fastId), 10_000, 'the stopped gateway is still listed');
    const json = JSON.parse((await writer(['store', 'status', '--at', location, '--json'])).stdout);
    expect(json.gateways.map((g: { record: { gateway: string }; serves: object }) => [g.record.gateway, g.serves])).toEqual([[slowId, { auth: true, decks: true }]]);
  }, 120_000);
});

describe('keys revoke --publish --purge with no gateway reporting', () => {
  it('falls back to the 5 s propagation bound, and says so', async () => {
    await gateways[0]!.stop();
    const created = await writer(['keys', 'create', '--name', 'late', '--db', writerDb]);
    const id = /created (key_[0-9a-f]+)/.exec(created.stderr)![1]!;
    purges.length = 0;
    watchedDeck = deck().id;
    gateways = [];
    const started = Date.now();
    const revoked = await writer(['keys', 'revoke', id, '--db', writerDb, '--publish', location, '--purge', purgeUrl]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toMatch(/no gateway following \S+ has reported what it serves .*: purging after the 5 s propagation bound for keys/);
    expect(purges).toHaveLength(1);
    expect(purges[0]!.doneAt - started).toBeGreaterThanOrEqual(5000);
  }, 60_000);
});

describe('store status', () => {
  it('refuses a location where nothing is published, with exit 1', async () => {
    const empty = await writer(['store', 'status', '--at', s3.newLocation('nothing')]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/no store has been published at s3:\/\//);
    const port = await freePort();
    const unreachable = await runCli(['store', 'status', '--at', location], { env: { ...s3.env, SNAPDECK_S3_ENDPOINT: `http://127.0.0.1:${port}`, SNAPDECK_S3_MAX_ATTEMPTS: '1' } });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).not.toMatch(/at .*\.ts:\d+/); // a sentence, not a stack trace
  });
});
