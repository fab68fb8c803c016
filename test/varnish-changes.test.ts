/**
 * GET /v1/games/{slug}/changes through the shipped VCL (deploy/varnish/snapdeck.vcl) and a real
 * Varnish: pages are cached per key and per encoding like card pages, 304 answered from
 * the cache, and 410 / 400 pass through in the JSON error shape, never stored.
 */
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { buildCards, renamed, type Card } from './helpers/card-changes.ts';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, waitFor, type TestGateway } from './helpers/harness.ts';
import { gatewayRequests, rawRequest, startVarnish, type RawResponse, type VarnishTestServer } from './helpers/varnish-server.ts';

const GAME = 'gundam';
let dir: string;
let cleanup: () => Promise<void>;
let gateway: TestGateway;
let cache: VarnishTestServer;
let from: string;

const viaCache = (path: string, headers: Record<string, string>) => rawRequest(`${cache.url}${path}`, { headers });
const decoded = (r: RawResponse) => {
  const encoding = r.headers['content-encoding'];
  return (encoding === 'br' ? brotliDecompressSync(r.body) : encoding === 'gzip' ? gunzipSync(r.body) : r.body).toString('utf8');
};

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-varnish-changes-'));
  const catalogs = await writeGeneratedCatalog(join(dir, 'catalog'), { gundam: 30, digimon: 2, 'grand-archive': 2, 'chrono-core': 2 });
  for (const game of ['digimon', 'grand-archive', 'chrono-core'] as const) await buildCards(join(dir, 'catalog'), join(dir, 'snapshots'), game, catalogs[game] as Card[]);
  const cards = catalogs[GAME] as Card[];
  from = (await buildCards(join(dir, 'catalog'), join(dir, 'snapshots'), GAME, cards)).version;
  const to = (await buildCards(join(dir, 'catalog'), join(dir, 'snapshots'), GAME, [...cards.slice(1, 20).map((c, i) => (i < 3 ? renamed(c, `Cached ${i}`) : c))])).version;
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db'), pointerTtlMs: 0 });
  await waitFor(async () => (await getJson(`${gateway.url}/readyz`)).body?.versions?.[GAME] === to, 10_000);
  cache = await startVarnish({ backendPort: Number(new URL(gateway.url).port) });
});

afterAll(async () => {
  await cache?.stop();
  await gateway?.close();
  await cleanup?.();
});

describe('GET /changes through the shipped VCL', () => {
  it('caches every page per key and encoding; another key misses; 304 from the cache', async () => {
    const key = gateway.createKey({ name: 'changes' });
    const pages = async (encoding: string) => {
      const out: RawResponse[] = [];
      let cursor: string | null = null;
      do {
        const r = await viaCache(`/v1/games/${GAME}/changes?since=${from}&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { 'X-API-Key': key, 'Accept-Encoding': encoding });
        expect(r.status).toBe(200);
        out.push(r);
        cursor = JSON.parse(decoded(r)).data.cursor;
      } while (cursor);
      return out;
    };
    const before = await gatewayRequests(gateway.url);
    const first = await pages('br');
    expect(first.length).toBe(3); // 14 changes (11 removed, 3 edited), 5 a page
    expect(first.every((r) => r.headers['x-cache'] === 'MISS' && r.headers['content-encoding'] === 'br')).toBe(true);
    const again = await pages('br');
    expect(again.every((r) => r.headers['x-cache'] === 'HIT')).toBe(true);
    expect(await gatewayRequests(gateway.url)).toBe(before + first.length);
    expect(again.map(decoded)).toEqual(first.map(decoded));
    const gzip = await pages('gzip');
    expect(gzip.map(decoded)).toEqual(first.map(decoded));
    const changes = first.flatMap((r) => JSON.parse(decoded(r)).data.changes);
    expect(changes.filter((c: { change: string }) => c.change === 'upsert')).toHaveLength(3);
    expect(changes.filter((c: { change: string }) => c.change === 'delete')).toHaveLength(11);

    const other = gateway.createKey({ name: 'other' });
    const r = await viaCache(`/v1/games/${GAME}/changes?since=${from}&limit=5`, { 'X-API-Key': other, 'Accept-Encoding': 'br' });
    expect(r.headers['x-cache']).toBe('MISS');
    const etag = first[0]!.headers.etag as string;
    const notModified = await viaCache(`/v1/games/${GAME}/changes?since=${from}&limit=5`, { 'X-API-Key': key, 'Accept-Encoding': 'br', 'If-None-Match': etag });
    expect(notModified.status).toBe(304);
  });

  it('passes 410 and 400 through in the JSON error shape, never stored', async () => {
    const key = gateway.createKey({ name: 'errors' });
    for (const [query, status, error] of [
      ['since=2020-01-01T00-00-00-000Z-abcdef', 410, ERRORS.versionGone],
      ['limit=5', 400, ERRORS.sinceRequired],
      [`since=${from}&cursor=nope`, 400, ERRORS.invalidCursor],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const before = await gatewayRequests(gateway.url, status);
        const r = await viaCache(`/v1/games/${GAME}/changes?${query}`, { 'X-API-Key': key, 'Accept-Encoding': 'br' });
        expect([r.status, JSON.parse(decoded(r))], query).toEqual([status, { error }]);
        expect(r.headers['content-type']).toBe('application/json');
        expect(await gatewayRequests(gateway.url, status), `${query} reached the gateway`).toBe(before + 1);
      }
    }
  });
});
