import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { MemoryQuotaCounter, WINDOW_SECONDS, windowOf } from '@snapdeck/gateway';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

let gateway: TestGateway;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  await writeGeneratedCatalog(join(dir, 'catalog'), { 'chrono-core': 20 });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

describe('quota', () => {
  it('admits exactly the quota out of 50 concurrent requests, across endpoints', async () => {
    const key = gateway.createKey({ quota: 20 });
    // Every Retry-After is counted from a moment after this one: at most this many seconds.
    const startedAt = Date.now();
    const windowLeft = Math.ceil((windowOf(startedAt).end - startedAt) / 1000);
    const paths = ['/games', '/games/chrono-core/cards', '/games/chrono-core/cards/WNR01-001', '/games/nope/cards'];
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => fetch(`${gateway.base}${paths[i % paths.length]}`, { headers: { 'X-API-Key': key } })),
    );
    const limited = responses.filter((r) => r.status === 429);
    expect(responses.length - limited.length).toBe(20);
    expect(limited).toHaveLength(30);
    for (const response of limited) {
      expect(await response.json()).toEqual({ error: ERRORS.rateLimitExceeded });
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(Math.min(WINDOW_SECONDS, windowLeft + 1));
      expect(response.headers.get('ratelimit-remaining')).toBe('0');
      expect(response.headers.get('ratelimit-limit')).toBe('20');
      expect(response.headers.get('ratelimit-policy')).toBe('"default";q=20;w=900');
      expect(response.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d+$/);
    }
    const remaining = responses.filter((r) => r.status !== 429).map((r) => Number(r.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('keys are counted separately and a 401 is not counted', async () => {
    const a = gateway.createKey({ quota: 2 });
    const b = gateway.createKey({ quota: 2 });
    for (let i = 0; i < 3; i++) await fetch(`${gateway.base}/games`);
    expect((await fetch(`${gateway.base}/games`, { headers: { 'X-API-Key': a } })).status).toBe(200);
    expect((await fetch(`${gateway.base}/games`, { headers: { 'X-API-Key': a } })).status).toBe(200);
    expect((await fetch(`${gateway.base}/games`, { headers: { 'X-API-Key': a } })).status).toBe(429);
    expect((await fetch(`${gateway.base}/games`, { headers: { 'X-API-Key': b } })).status).toBe(200);
  });
});

describe('MemoryQuotaCounter', () => {
  it('uses windows aligned to :00/:15/:30/:45 and resets when the window turns', () => {
    let now = Date.parse('2026-11-22T10:14:58.500Z');
    const counter = new MemoryQuotaCounter(() => now);
    expect(counter.consume('k', 1)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 2 });
    expect(counter.consume('k', 1)).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 2 });
    now = Date.parse('2026-11-22T10:15:00.000Z');
    expect(counter.consume('k', 1)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 900 });
  });
});
