/**
 * Client-side search behind the shipped Varnish configuration (decisions.md "Search"): the
 * descriptor and the index files are public and the same for every client, so a second cold
 * client's search through the cache costs the gateway no request at all (requests counted at its
 * /metrics).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapdeckClient } from '@snapdeck/client';
import { startGateway, type RunningGateway } from '@snapdeck/gateway';
import { buildGeneratedSnapshots } from './helpers/catalog.ts';
import { tempDir } from './helpers/harness.ts';
import { responseValidation } from './helpers/response-validation.ts';
import { scannedLog } from './helpers/secret-scan.ts';
import { gatewayRequests, rawRequest, startVarnish, type VarnishTestServer } from './helpers/varnish-server.ts';

let gateway: RunningGateway;
let cache: VarnishTestServer;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  // Answers come from the cache, which drops RateLimit* from hits on purpose (the VCL says why):
  // the gateway's own answers are checked against the document in search.test.ts.
  responseValidation.enabled = false;
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  const snapshots = await buildGeneratedSnapshots(dir, { digimon: 120, gundam: 10, 'grand-archive': 10, 'chrono-core': 10 });
  gateway = await startGateway({ port: 0, host: '127.0.0.1', snapshots, db: join(dir, 'snapdeck.db'), pointerTtlMs: 50, log: scannedLog('gateway') });
  cache = await startVarnish({ backendPort: Number(new URL(gateway.url).port) });
}, 120_000);

afterAll(async () => {
  responseValidation.enabled = true;
  await cache?.stop();
  await gateway?.close();
  await cleanup?.();
});

describe('search through Varnish', () => {
  it('a second cold client searching the same way costs the gateway 0 requests', async () => {
    const search = async () => {
      const client = new SnapdeckClient({ baseUrl: `${cache.url}/v1` });
      const byName = await client.searchCards('digimon', 'Agumon', { limit: 5 });
      const filtered = await client.searchCards('digimon', '', { filters: { cardType: 'Tamer' }, limit: 5 });
      return { byName, filtered };
    };
    const before = await gatewayRequests(gateway.url);
    const first = await search();
    const afterFirst = await gatewayRequests(gateway.url);
    expect(afterFirst - before).toBeGreaterThan(3);
    const second = await search();
    expect(await gatewayRequests(gateway.url)).toBe(afterFirst);
    expect(second.byName.hits.map((h) => h.id)).toEqual(first.byName.hits.map((h) => h.id));
    expect(second.filtered.total).toBe(first.filtered.total);
    expect(second.filtered.total).toBeGreaterThan(0);
  });

  it('stores one entry per file whatever query the engine adds, and serves the files with their immutable caching', async () => {
    const descriptor = JSON.parse((await rawRequest(`${cache.url}/v1/search/snapdeck_digimon_cards`)).body.toString('utf8')).data;
    const url = `${cache.url}${descriptor.baseUrl}pagefind-entry.json`;
    await rawRequest(`${url}?ts=1`);
    const seen = await gatewayRequests(gateway.url);
    const again = await rawRequest(`${url}?ts=2`);
    expect(again.status).toBe(200);
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(await gatewayRequests(gateway.url)).toBe(seen);
  });
});
