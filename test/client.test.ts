/**
 * @snapdeck/client, the partner kit, against a real gateway: full walks of every game at
 * several page sizes, a walk across a rebuild, a walk whose version is collected mid-way, deck
 * syncs across imports (the change feed: removals and late imports), typed errors and what is (not) retried.
 * Quotas and stopped storage: test/client-faults.test.ts. The mirroring example of the partners'
 * docs: test/client-example.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAME_SLUGS, type GameSlug } from '@snapdeck/contract';
import {
  AuthenticationError, ConnectionError, InvalidRequestError, NotFoundError, PermissionError, SnapdeckClient, SnapdeckError, type DeckCheckpoint,
  type DeckSyncEvent, type RetryEvent, type SyncedDeck,
} from '@snapdeck/client';
import { FsDriver, build, collectGarbage } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { BOTH_SCOPES, idGenerator, importLines, iso, type DeckLine } from './helpers/decks.ts';
import { getJson, startTestGateway, tempDir, waitFor, type TestGateway } from './helpers/harness.ts';

const COUNTS = { digimon: 45, gundam: 31, 'grand-archive': 23, 'chrono-core': 17 } satisfies Record<GameSlug, number>;
let dir: string;
let cleanup: () => Promise<void>;
let gateway: TestGateway;
let catalogs: Record<string, Array<{ id: string }>>;
let key: string;
let client: SnapdeckClient;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-client-'));
  catalogs = await writeGeneratedCatalog(join(dir, 'catalog'), COUNTS);
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1, 1000] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db'), pointerTtlMs: 50 });
  key = gateway.createKey({ scopes: BOTH_SCOPES, quota: 100_000 });
  client = new SnapdeckClient({ baseUrl: gateway.base, apiKey: key });
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** The next `n` items of a walk (which must have them). */
async function take<T>(walk: AsyncGenerator<T, unknown>, n: number): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    const next = await walk.next();
    if (next.done) throw new Error(`the walk ended after ${i} items`);
    out.push(next.value);
  }
  return out;
}

describe('walkCards', () => {
  it.each([1, 7, 1000])('walks every game at hitsPerPage=%i: each card exactly once, with progress', async (hitsPerPage) => {
    for (const game of GAME_SLUGS) {
      const progress: Array<{ pages: number; hits: number; totalHits: number }> = [];
      const ids = (await collect(client.walkCards(game, { hitsPerPage, onProgress: (p) => progress.push(p) }))).map((hit) => hit.id);
      const expected = catalogs[game]!.map((card) => card.id);
      expect(ids.length, game).toBe(expected.length);
      expect(new Set(ids), game).toEqual(new Set(expected));
      expect(progress.at(-1), game).toEqual({ pages: Math.max(1, Math.ceil(expected.length / hitsPerPage)), hits: expected.length, totalHits: expected.length, restarts: 0 });
    }
  });

  it('types each game\'s hits: digimon names are objects, gundam names strings (checked by tsc)', async () => {
    const walk = client.walkCards('digimon', { hitsPerPage: 1000 });
    const first = await walk.next();
    if (first.done) throw new Error('no digimon hit');
    const english: string = first.value.name.english;
    expect(english.length).toBeGreaterThan(0);
    await walk.return(undefined as never);
    for await (const hit of client.walkCards('gundam', { hitsPerPage: 1000 })) {
      const name: string = hit.name;
      expect(typeof name).toBe('string');
      break;
    }
    const card = await client.getCard('digimon', first.value.id);
    expect(card.AAs).toBeInstanceOf(Array);
  });

  it('finishes a walk started before a rebuild on the version it started on', async () => {
    const game = 'chrono-core';
    const walk = client.walkCards(game, { hitsPerPage: 5 });
    const ids: string[] = [];
    ids.push(...(await take(walk, 7)).map((hit) => hit.id));
    const before = catalogs[game]!.map((card) => card.id);
    // A rebuild with 12 more cards becomes current.
    catalogs = { ...catalogs, ...(await writeGeneratedCatalog(join(dir, 'catalog'), { [game]: COUNTS[game] + 12 })) };
    await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), games: [game], hitsPerPage: [1, 1000] });
    await waitFor(async () => (await getJson(`${gateway.base}/games/${game}/cards`, { 'X-API-Key': key })).body.data.totalHits === COUNTS[game] + 12);
    let result = await walk.next();
    while (!result.done) {
      ids.push(result.value.id);
      result = await walk.next();
    }
    expect(ids.length).toBe(before.length);
    expect(new Set(ids)).toEqual(new Set(before));
    expect(result.value).toMatchObject({ restarts: 0, totalHits: before.length });
  });

  it('restarts a walk whose version is collected mid-way, without yielding an id twice', async () => {
    const game = 'gundam';
    const snapshots = new FsDriver(join(dir, 'snapshots'));
    const walk = client.walkCards(game, { hitsPerPage: 4 });
    const ids: string[] = [];
    ids.push(...(await take(walk, 10)).map((hit) => hit.id));
    // A rebuild, then `snapdeck gc --keep 1 --min-age 0`: the walked version is deleted.
    catalogs = { ...catalogs, ...(await writeGeneratedCatalog(join(dir, 'catalog'), { [game]: COUNTS[game] + 9 })) };
    await build({ catalogDir: join(dir, 'catalog'), storage: snapshots, games: [game], hitsPerPage: [1, 1000] });
    const gc = await collectGarbage({ storage: snapshots, games: [game], keep: 1, minAgeHours: 0 });
    expect(gc.deletedVersions).toBe(1);
    let result = await walk.next();
    while (!result.done) {
      ids.push(result.value.id);
      result = await walk.next();
    }
    expect(result.value.restarts).toBe(1);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(new Set(catalogs[game]!.map((card) => card.id)));
  });
});

describe('syncDecks (the deck change feed) and listAllDeckIds', () => {
  const nextId = idGenerator(41);
  const T0 = Date.parse('2026-03-01T00:00:00.000Z');
  const deck = (i: number, over: Partial<DeckLine> = {}): DeckLine => ({
    id: nextId(),
    gameId: 'digimon',
    name: `Deck ${i}`,
    ownerDisplayName: 'someone',
    visibility: 'public',
    createdAt: iso(T0 + i * 1000),
    // Three decks share the last updatedAt: the boundary of the next incremental sync.
    updatedAt: iso(T0 + Math.min(i, 117) * 60_000),
    cards: [{ cardId: catalogs.digimon![i % 10]!.id, quantity: 1 + (i % 4), zoneId: 'main' }],
    ...over,
  });

  it('syncs every public deck, then exactly what changed across imports (removals and late imports included), with no enumeration after the first', async () => {
    const decks = Array.from({ length: 120 }, (_, i) => deck(i));
    const gundam = { ...deck(500), gameId: 'gundam' as const, cards: [] };
    await importLines(join(dir, 'snapdeck.db'), [...decks, gundam]);

    /** Applies a sync's events to a copy (id → name and updatedAt); returns its events' types. */
    const apply = async (copy: Map<string, SyncedDeck>, sync: AsyncIterable<DeckSyncEvent>): Promise<string[]> => {
      const types: string[] = [];
      for await (const event of sync) {
        types.push(event.type === 'reset' ? `reset:${event.reason}` : event.type);
        if (event.type === 'reset') copy.clear();
        if (event.type === 'upsert') copy.set(event.deck.id, event.deck);
        if (event.type === 'removed') copy.delete(event.id);
      }
      return types;
    };
    const copy = new Map<string, SyncedDeck>();
    const first = client.syncDecks('digimon');
    const types = await apply(copy, first);
    expect(types[0]).toBe('reset:first sync');
    expect(types.at(-1)).toBe('checkpoint');
    expect([...copy.keys()].sort()).toEqual(decks.map((d) => d.id).sort());
    expect(copy.get(decks[5]!.id)).toEqual({ id: decks[5]!.id, gameId: 'digimon', name: 'Deck 5', cards: decks[5]!.cards, updatedAt: decks[5]!.updatedAt });
    const checkpoint: DeckCheckpoint = first.checkpoint!;
    expect(typeof checkpoint).toBe('string');
    // the cursor of now, 3 listing pages of 50 with one details call each, one feed page
    expect(first.progress).toMatchObject({ requests: 8, upserts: 120, removals: 0, resets: 1 });

    // Nothing changed: one request, nothing yielded but the checkpoint.
    const idle = client.syncDecks('digimon', { checkpoint });
    expect(await apply(copy, idle)).toEqual(['checkpoint']);
    expect(idle.progress.requests).toBe(1);

    // A late import (updatedAt before everything synced), five updated, one privatized, one deleted.
    const late = deck(200, { updatedAt: iso(T0 - 86_400_000), createdAt: iso(T0 - 2 * 86_400_000) });
    const updated = decks.slice(10, 15).map((d) => ({ ...d, name: `${d.name} v2`, updatedAt: iso(T0 + 500 * 60_000) }));
    const privatized = { ...decks[20]!, visibility: 'private' as const };
    await importLines(join(dir, 'snapdeck.db'), [late, ...updated, privatized, { id: decks[30]!.id, deleted: true }]);

    const second = client.syncDecks('digimon', { checkpoint });
    expect((await apply(copy, second)).filter((type) => type !== 'checkpoint').sort()).toEqual([...Array(6).fill('upsert'), 'removed', 'removed'].sort());
    // A feed page, its details, and the feed once more (empty): the details' version had nothing newer.
    expect(second.progress).toMatchObject({ requests: 3, upserts: 6, removals: 2, resets: 0 });
    const live = await client.listAllDeckIds('digimon');
    expect(new Set(copy.keys())).toEqual(live);
    expect(copy.get(decks[12]!.id)!.name).toBe('Deck 12 v2');
    expect(live.has(gundam.id)).toBe(false);
  });

  it('getDeckDetails sends 50 ids per call, whatever the number asked for', async () => {
    const ids = Array.from({ length: 120 }, () => nextId());
    const calls: string[] = [];
    const counting = new SnapdeckClient({
      baseUrl: gateway.base,
      apiKey: key,
      fetch: (input, init) => {
        calls.push(String(init?.body ?? ''));
        return fetch(input, init);
      },
    });
    const result = await counting.getDeckDetails(ids);
    expect(result.unresolved).toEqual(ids);
    expect(calls.map((body) => JSON.parse(body).ids.length)).toEqual([50, 50, 20]);
  });
});

describe('errors', () => {
  it('never retries a 4xx other than 429; each is typed, with the documented string and the request id', async () => {
    const retries: RetryEvent[] = [];
    const onRetry = (event: RetryEvent) => retries.push(event);
    const cases: Array<[() => Promise<unknown>, new (...args: never[]) => SnapdeckError, number, string]> = [
      [() => new SnapdeckClient({ baseUrl: gateway.base, apiKey: 'sd_live_0123', onRetry }).listGames(), AuthenticationError, 401, 'Invalid API key'],
      [() => new SnapdeckClient({ baseUrl: gateway.base, onRetry }).listGames(), AuthenticationError, 401, 'API key required'],
      [() => new SnapdeckClient({ baseUrl: gateway.base, apiKey: gateway.createKey(), onRetry }).listPublicDecks('digimon'), PermissionError, 403, 'Insufficient scope'],
      [() => new SnapdeckClient({ baseUrl: gateway.base, apiKey: key, onRetry }).getCard('digimon', 'NOPE-999'), NotFoundError, 404, 'Card not found'],
      [() => new SnapdeckClient({ baseUrl: gateway.base, apiKey: key, onRetry }).getCardsPage('digimon', { hitsPerPage: 0 }), InvalidRequestError, 400, 'hitsPerPage must be an integer between 1 and 1000'],
    ];
    for (const [call, type, status, error] of cases) {
      const thrown = await call().then(() => null, (e: unknown) => e);
      expect(thrown).toBeInstanceOf(type);
      expect(thrown).toBeInstanceOf(SnapdeckError);
      expect(thrown).toMatchObject({ status, error });
      expect((thrown as SnapdeckError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(retries).toEqual([]);
  });

  it('retries network errors with jittered backoff, then fails with a ConnectionError', async () => {
    const retries: RetryEvent[] = [];
    const closed = new SnapdeckClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: key, retry: { maxRetries: 3, baseDelayMs: 20, maxDelayMs: 100 }, onRetry: (e) => retries.push(e) });
    const thrown = await closed.listGames().then(() => null, (e: unknown) => e);
    expect(thrown).toBeInstanceOf(ConnectionError);
    expect(thrown).toMatchObject({ status: 0, error: 'Network error' });
    expect(retries.map((r) => [r.retry, r.reason])).toEqual([[1, 'network'], [2, 'network'], [3, 'network']]);
    for (const r of retries) expect(r.delayMs).toBeLessThanOrEqual(Math.min(100, 20 * 2 ** (r.retry - 1)));
  });
});
