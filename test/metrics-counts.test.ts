/**
 * snapdeck_http_requests_total is counted per request in plain numbers and handed to prom-client
 * when /metrics is scraped (gateway/src/metrics.ts): every scrape shows exactly the answers given
 * before it, once, and a series appears with the first answer of its route and status. So does
 * the duration histogram, whose observations a route gathers and hands over together.
 */
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATIONS_OBSERVED_TOGETHER, startGateway, type RunningGateway } from '@snapdeck/gateway';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { buildGeneratedSnapshots } from './helpers/catalog.ts';
import { tempDir } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
let gateway: RunningGateway;
let key: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-metrics-'));
  const snapshots = await buildGeneratedSnapshots(dir, { digimon: 10, gundam: 5, 'grand-archive': 5, 'chrono-core': 5 });
  const db = openDatabase(join(dir, 'snapdeck.db'));
  key = new KeyStore(db).create({ name: 'metrics' }).key;
  db.close();
  gateway = await startGateway({ port: 0, host: '127.0.0.1', snapshots, db: join(dir, 'snapdeck.db'), log: pino({ level: 'silent' }) });
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

async function scrape(): Promise<(series: string) => number | undefined> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return (series) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
}

const get = async (path: string, headers: Record<string, string> = {}) => (await fetch(`${gateway.url}${path}`, { headers })).arrayBuffer();

describe('requests by route and status', () => {
  it('are exact at every scrape, counted once, and a series exists from its first answer on', async () => {
    const ok = 'snapdeck_http_requests_total{route="/v1/games",status="200"}';
    const refused = 'snapdeck_http_requests_total{route="/v1/games",status="401"}';
    const scrapes = 'snapdeck_http_requests_total{route="/metrics",status="200"}';
    const timed = 'snapdeck_http_request_duration_seconds_count{route="/v1/games"}';

    let value = await scrape();
    expect(value(ok)).toBeUndefined();
    expect(value(refused)).toBeUndefined();
    expect(value(scrapes)).toBeUndefined(); // a scrape is counted once answered: after its own text

    for (let i = 0; i < 5; i++) await get('/v1/games', { 'X-API-Key': key });
    await get('/v1/games');
    value = await scrape();
    expect([value(ok), value(refused), value(scrapes), value(timed)]).toEqual([5, 1, 1, 6]);

    value = await scrape(); // nothing answered in between but the scrape before
    expect([value(ok), value(refused), value(scrapes), value(timed)]).toEqual([5, 1, 2, 6]);

    await get('/v1/games', { 'X-API-Key': key });
    await get('/v1/games', { 'X-API-Key': 'sd_live_00000000000000000000000000000000' });
    value = await scrape();
    expect([value(ok), value(refused), value(scrapes), value(timed)]).toEqual([6, 2, 3, 8]);

    // More answers than a route gathers before its histogram observes them, then a scrape.
    const many = 25 * Math.ceil((DURATIONS_OBSERVED_TOGETHER + 50) / 25);
    for (let i = 0; i < many; i += 25) await Promise.all(Array.from({ length: 25 }, () => get('/v1/games', { 'X-API-Key': key })));
    value = await scrape();
    expect([value(ok), value(timed)]).toEqual([6 + many, 8 + many]);
    expect(value('snapdeck_http_request_duration_seconds_bucket{le="60",route="/v1/games"}')).toBe(8 + many);
  });
});
