import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

/**
 * The gateway in front of an S3 store (moto) that stops answering: the server is frozen with
 * SIGSTOP (connections are accepted, nothing answers, no data is lost), then thawed with SIGCONT.
 * Cached pages keep being served; what needs storage fails fast with a plain 500; the process
 * stays up; and it serves everything again by itself once storage answers.
 */
const GAME = 'gundam';
/** Per-attempt timeout and attempts of the gateway's S3 driver (production: 120 s, 4). */
const TIMEOUT_MS = 800;
const ATTEMPTS = 2;
/** Longest an answer may take while storage is down: attempts × timeout plus backoff, with room. */
const BOUND_MS = 5_000;

let s3: S3TestServer;
let dir: string;
let cleanup: () => Promise<void>;
let gateway: TestGateway;
let headers: Record<string, string>;
let cards: Record<string, Array<{ id: string }>>;
const savedEnv = { ...process.env };

beforeAll(async () => {
  s3 = await startS3Server();
  ({ dir, cleanup } = await tempDir('snapdeck-resilience-'));
  cards = await writeGeneratedCatalog(join(dir, 'catalog'), { [GAME]: 120 }, 11);
  const location = s3.newLocation('resilience');
  const storage = s3.open(location);
  await build({ catalogDir: join(dir, 'catalog'), storage, hitsPerPage: [10] });
  await storage.close();
  // The gateway opens its location with openStorage(), which reads these from the environment.
  Object.assign(process.env, s3.env, { SNAPDECK_S3_TIMEOUT_MS: String(TIMEOUT_MS), SNAPDECK_S3_MAX_ATTEMPTS: String(ATTEMPTS) });
  gateway = await startTestGateway({ snapshots: location, db: join(dir, 'gateway.db'), pointerTtlMs: 100 });
  headers = { 'X-API-Key': gateway.createKey() };
});

afterAll(async () => {
  s3?.resume();
  await gateway?.close();
  process.env = savedEnv;
  await s3?.stop();
  await cleanup?.();
});

const pageUrl = (cursor?: string, hitsPerPage = 10) =>
  `${gateway.base}/games/${GAME}/cards?hitsPerPage=${hitsPerPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

async function timed(url: string): Promise<{ status: number; body: any; ms: number }> {
  const started = Date.now();
  const response = await getJson(url, headers);
  return { status: response.status, body: response.body, ms: Date.now() - started };
}

describe('the gateway when S3 stops answering', () => {
  it('serves cached pages, fails uncached ones fast with 500, stays up, and recovers by itself', async () => {
    // Pages 0..2 and one card are read once, so they are cached.
    const cursors: string[] = [];
    let page = await getJson(pageUrl(), headers);
    expect(page.status).toBe(200);
    for (let i = 0; i < 3; i++) {
      cursors.push(page.body.data.cursor);
      if (i < 2) {
        page = await getJson(pageUrl(cursors[i]), headers);
        expect(page.status).toBe(200);
      }
    }
    // cursors[2] (page 3) has been seen but its page never fetched: uncached.
    const cachedCard = cards[GAME]![0]!.id;
    const uncachedCard = cards[GAME]![1]!.id;
    expect((await getJson(`${gateway.base}/games/${GAME}/cards/${cachedCard}`, headers)).status).toBe(200);

    s3.pause();
    try {
      // Past the pointer TTL: the refresh of current.json now fails in the background.
      await new Promise((resolve) => setTimeout(resolve, 300));

      for (const url of [pageUrl(), pageUrl(cursors[0]), pageUrl(cursors[1]), `${gateway.base}/games/${GAME}/cards/${cachedCard}`]) {
        const cached = await timed(url);
        expect(cached.status, url).toBe(200);
        expect(cached.ms, url).toBeLessThan(1_000);
      }

      // Uncached: a pre-rendered page, an assembled one (hitsPerPage not pre-rendered) and a card,
      // at the same time: each a plain 500, none hanging.
      const failing = await Promise.all([
        timed(pageUrl(cursors[2])),
        timed(pageUrl(undefined, 7)),
        timed(`${gateway.base}/games/${GAME}/cards/${uncachedCard}`),
      ]);
      for (const answer of failing) {
        expect(answer.status).toBe(500);
        expect(answer.body).toEqual({ error: 'Internal server error' });
        expect(answer.ms).toBeLessThan(BOUND_MS);
      }
      // Again, one at a time: still bounded (nothing piles up).
      const again = await timed(pageUrl(cursors[2]));
      expect(again.status).toBe(500);
      expect(again.ms).toBeLessThan(BOUND_MS);

      expect((await timed(`${gateway.url}/healthz`)).status).toBe(200);
      expect(gateway.server.listening).toBe(true);
      // Still serving what it has.
      expect((await timed(pageUrl(cursors[0]))).status).toBe(200);
    } finally {
      s3.resume();
    }

    // Storage answers again: the same gateway (no restart) serves the uncached pages and card.
    const until = Date.now() + 15_000;
    let recovered = await timed(pageUrl(cursors[2]));
    while (recovered.status !== 200 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      recovered = await timed(pageUrl(cursors[2]));
    }
    expect(recovered.status).toBe(200);
    expect(recovered.body.data.hits).toHaveLength(10);
    const assembled = await timed(pageUrl(undefined, 7));
    expect(assembled.status).toBe(200);
    expect(assembled.body.data.hits).toHaveLength(7);
    const card = await timed(`${gateway.base}/games/${GAME}/cards/${uncachedCard}`);
    expect(card.status).toBe(200);
    expect(card.body.data.id).toBe(uncachedCard);
    // The next page after the recovered one, never read before: storage is really used again.
    const next = await timed(pageUrl(recovered.body.data.cursor));
    expect(next.status).toBe(200);
  });
});
