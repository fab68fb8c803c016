/**
 * @snapdeck/client when the gateway says no: a key with a quota of 3
 * waits for the window to end, then succeeds, and fails at once with RateLimitError when the
 * wait would be longer than its cap; storage that stops answering gives 500s that are retried
 * with backoff, then a clear ServerError (or a success once storage is back).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUOTA_WINDOW_SECONDS } from '@snapdeck/contract';
import { RateLimitError, ServerError, SnapdeckClient, type RetryEvent } from '@snapdeck/client';
import { FsDriver, build } from '@snapdeck/snapshot';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-client-faults-'));
});
afterAll(() => cleanup?.());

describe('a quota of 3', () => {
  let gateway: CliGateway;
  /** Seconds the gateway's window had left when it started. */
  const LEFT_AT_START_S = 10;

  beforeAll(async () => {
    await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 5, gundam: 5, 'grand-archive': 5, 'chrono-core': 5 });
    await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1] });
    // The gateway's clock is set so that its current window ends LEFT_AT_START_S after it starts.
    const now = Date.now();
    const windowMs = QUOTA_WINDOW_SECONDS * 1000;
    const end = Math.ceil((now + 1) / windowMs) * windowMs;
    const offset = end - LEFT_AT_START_S * 1000 - now;
    openDatabase(join(dir, 'quota.db')).close();
    gateway = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'quota.db')], {
      env: { NODE_OPTIONS: `--import=${pathToFileURL(join(import.meta.dirname, 'helpers', 'clock-offset.mjs'))}`, SNAPDECK_TEST_CLOCK_OFFSET_MS: String(offset) },
    });
  });
  afterAll(() => gateway?.stop());

  function keyWithQuota(quota: number): string {
    const db = openDatabase(join(dir, 'quota.db'));
    try {
      return new KeyStore(db).create({ name: 'quota', scopes: [], quota }).key;
    } finally {
      db.close();
    }
  }

  it('waits for the window to end on 429 (Retry-After), then succeeds; a wait beyond the cap fails at once with RateLimitError', async () => {
    const key = keyWithQuota(3);
    const retries: RetryEvent[] = [];
    const client = new SnapdeckClient({ baseUrl: `${gateway.url}/v1`, apiKey: key, retry: { maxRateLimitWaitMs: 30_000 }, onRetry: (e) => retries.push(e) });
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect(await client.listGames()).toHaveLength(4);
    const elapsed = Date.now() - started;
    expect(retries.map((r) => [r.retry, r.reason])).toEqual([[1, 'rate-limit']]);
    const waited = retries[0]!;
    expect(waited.error).toBeInstanceOf(RateLimitError);
    expect(waited.error.retryAfter).toBeGreaterThanOrEqual(1);
    expect(waited.error.retryAfter).toBeLessThanOrEqual(LEFT_AT_START_S);
    expect(waited.delayMs).toBeGreaterThanOrEqual(waited.error.retryAfter! * 1000);
    expect(elapsed).toBeGreaterThanOrEqual(waited.delayMs);

    // The new window: 2 used by the last two calls, 1 left; then a full window to wait.
    const impatient = new SnapdeckClient({ baseUrl: `${gateway.url}/v1`, apiKey: key, retry: { maxRateLimitWaitMs: 5_000 }, onRetry: (e) => retries.push(e) });
    expect(await impatient.listGames()).toHaveLength(4);
    const before = Date.now();
    const thrown = await impatient.listGames().then(() => null, (e: unknown) => e);
    expect(Date.now() - before).toBeLessThan(2_000);
    expect(thrown).toBeInstanceOf(RateLimitError);
    expect(thrown).toMatchObject({ status: 429, error: 'Rate limit exceeded' });
    expect((thrown as RateLimitError).retryAfter).toBeGreaterThan(QUOTA_WINDOW_SECONDS - 60);
    expect(retries).toHaveLength(1);
  });
});

describe('storage that stops answering', () => {
  const GAME = 'grand-archive';
  let s3: S3TestServer;
  let gateway: TestGateway;
  let cards: Record<string, Array<{ id: string }>>;
  let key: string;
  const savedEnv = { ...process.env };

  beforeAll(async () => {
    s3 = await startS3Server();
    cards = await writeGeneratedCatalog(join(dir, 's3-catalog'), { [GAME]: 20 }, 5);
    const location = s3.newLocation('client');
    const storage = s3.open(location);
    await build({ catalogDir: join(dir, 's3-catalog'), storage, hitsPerPage: [1] });
    await storage.close();
    Object.assign(process.env, s3.env, { SNAPDECK_S3_TIMEOUT_MS: '600', SNAPDECK_S3_MAX_ATTEMPTS: '1' });
    gateway = await startTestGateway({ snapshots: location, db: join(dir, 's3.db'), pointerTtlMs: 100 });
    key = gateway.createKey();
    // Loaded: the game's version is known, its cards are not cached yet.
    expect((await new SnapdeckClient({ baseUrl: gateway.base, apiKey: key }).getCardsPage(GAME)).totalHits).toBe(20);
  });

  afterAll(async () => {
    s3?.resume();
    await gateway?.close();
    process.env = savedEnv;
    await s3?.stop();
  });

  it('retries the 500s with backoff, then fails with a ServerError carrying the documented string and the request id', async () => {
    const retries: RetryEvent[] = [];
    const client = new SnapdeckClient({ baseUrl: gateway.base, apiKey: key, retry: { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 400 }, onRetry: (e) => retries.push(e) });
    s3.pause();
    try {
      const thrown = await client.getCard(GAME, cards[GAME]![3]!.id).then(() => null, (e: unknown) => e);
      expect(thrown).toBeInstanceOf(ServerError);
      expect(thrown).toMatchObject({ status: 500, error: 'Internal server error' });
      expect((thrown as ServerError).requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect((thrown as ServerError).message).toContain(`GET ${gateway.base}/games/${GAME}/cards/${cards[GAME]![3]!.id}: 500 Internal server error [request `);
      expect(retries.map((r) => [r.retry, r.reason])).toEqual([[1, 'server-error'], [2, 'server-error']]);
    } finally {
      s3.resume();
    }
  });

  it('succeeds when storage is back before the retries are used up', async () => {
    const retries: RetryEvent[] = [];
    const client = new SnapdeckClient({
      baseUrl: gateway.base,
      apiKey: key,
      retry: { maxRetries: 4, baseDelayMs: 200, maxDelayMs: 400 },
      onRetry: (e) => {
        retries.push(e);
        s3.resume();
      },
    });
    s3.pause();
    const card = await client.getCard(GAME, cards[GAME]![4]!.id);
    expect(card.id).toBe(cards[GAME]![4]!.id);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]!.reason).toBe('server-error');
  });
});
