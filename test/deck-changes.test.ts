/**
 * GET /v1/decks/changes over HTTP (decisions.md "Deck changes"): the raw flow
 * docs/partners/syncing-decks.md shows, request by request; the late import `updatedSince` loses
 * and the feed does not (also through @snapdeck/client's syncDecks); 410 after pruned removals and
 * syncDecks starting again by itself; bad input answered as documented, in the contract's
 * precedence, with the cursor never logged whole; the route's label in the access log and metrics.
 * The model of many such sequences across two gateways: test/generated/deck-feed-model.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { SnapdeckClient, type DeckSyncEvent } from '@snapdeck/client';
import { startGateway, type RunningGateway } from '@snapdeck/gateway';
import { KeyStore, pruneDeckChanges } from '@snapdeck/store';
import { BOTH_SCOPES, DeckClient, idGenerator, importLines, iso, startDeckEnv, withDb, type DeckLine, type DeckTestEnv } from './helpers/decks.ts';
import { tempDir } from './helpers/harness.ts';

const ROOT = join(import.meta.dirname, '..');
const newId = idGenerator(2244);
let env: DeckTestEnv;
let key: string;
/** Access log lines of a second gateway on the same database (the log is read back). */
const logged: Array<Record<string, unknown>> = [];
let logging: RunningGateway & { client?: DeckClient };

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 10, gundam: 10 });
  key = env.key;
  logging = await startGateway({
    port: 0, host: '127.0.0.1', snapshots: env.snapshots, db: env.dbFile, pointerTtlMs: 50,
    log: pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) }),
  });
});

afterAll(async () => {
  await logging?.close();
  await env?.close();
});

function deck(gameId: 'digimon' | 'gundam', updatedAt: string, over: Partial<DeckLine> = {}): DeckLine {
  return {
    id: newId(), gameId, name: 'Feed deck', ownerDisplayName: 'feeder', visibility: 'public',
    createdAt: iso(Date.parse(updatedAt) - 3_600_000), updatedAt, cards: [{ cardId: env.catalogs[gameId]![0]!.id, quantity: 2 }], ...over,
  };
}

const changes = async (query: string, headers: Record<string, string> = { 'X-API-Key': key }) => env.client.get(`/decks/changes?${query}`, headers);

/** Follows the feed from `since` to hasMore false; every change, the last cursor, the pages. */
async function follow(game: string, since: string, limit = 1000) {
  const all: Array<{ id: string; change: string; updatedAt?: string }> = [];
  let cursor = since;
  for (let pages = 1; ; pages++) {
    const r = await changes(`gameId=${game}&since=${encodeURIComponent(cursor)}&limit=${limit}`);
    expect(r.status, r.text).toBe(200);
    all.push(...r.body.data.changes);
    cursor = r.body.data.cursor;
    if (!r.body.data.hasMore) return { changes: all, cursor, pages };
  }
}

describe('the flow docs/partners/syncing-decks.md shows', () => {
  it('shows these requests, in this order', () => {
    const page = readFileSync(join(ROOT, 'docs', 'partners', 'syncing-decks.md'), 'utf8');
    const block = /```http\n([\s\S]*?)```/.exec(page)![1]!.trim().split('\n');
    expect(block).toEqual([
      'GET /v1/decks/changes?gameId=digimon',
      'GET /v1/decks/public?gameId=digimon&limit=50&sort=createdAt',
      'POST /v1/decks/details',
      'GET /v1/decks/changes?gameId=digimon&since=CURSOR',
    ]);
  });

  it('a first sync (cursor of now, enumeration, details, feed), then only what changed: the copy equals the public decks each time', async () => {
    const first = Array.from({ length: 60 }, (_, i) => deck('digimon', iso(Date.parse('2026-06-01T00:00:00Z') + i * 60_000)));
    await importLines(env.dbFile, [...first, deck('gundam', '2026-06-01T00:00:00Z')]);

    // 1. The cursor of now: no changes.
    const now = await changes('gameId=digimon');
    expect(now.status).toBe(200);
    expect(now.body.data).toEqual({ changes: [], cursor: expect.any(String), hasMore: false });
    // A change committed during the enumeration reaches the partner through the feed.
    const during = deck('digimon', '2026-05-01T00:00:00Z');
    // 2. The enumeration, 3. details 50 ids a call.
    const copy = new Map<string, string>();
    let startAfter = '';
    for (;;) {
      const page = await env.client.get(`/decks/public?gameId=digimon&limit=50&sort=createdAt&startAfter=${encodeURIComponent(startAfter)}`, { 'X-API-Key': key });
      expect(page.status).toBe(200);
      const details = await env.client.post('/decks/details', JSON.stringify({ ids: page.body.data.decks.map((d: { id: string }) => d.id) }), { 'X-API-Key': key });
      expect(details.body.data.unresolved).toEqual([]);
      for (const d of page.body.data.decks) copy.set(d.id, d.updatedAt);
      if (copy.size === 50) await importLines(env.dbFile, [during]);
      if (!page.body.data.hasMore) break;
      startAfter = page.body.data.nextCursor;
    }
    // 4. The feed from the cursor of now.
    const fed = await follow('digimon', now.body.data.cursor);
    for (const c of fed.changes) c.change === 'upsert' ? copy.set(c.id, c.updatedAt!) : copy.delete(c.id);
    expect(fed.changes.map((c) => c.id)).toContain(during.id);
    const publicNow = async () => {
      const ids = new Map<string, string>();
      let after = '';
      for (;;) {
        const page = await env.client.get(`/decks/public?gameId=digimon&limit=50&startAfter=${encodeURIComponent(after)}`, { 'X-API-Key': key });
        for (const d of page.body.data.decks) ids.set(d.id, d.updatedAt);
        if (!page.body.data.hasMore) return ids;
        after = page.body.data.nextCursor;
      }
    };
    expect(copy).toEqual(await publicNow());

    // Later: edits, a privatization, a deletion, a deck made public again: one request.
    await importLines(env.dbFile, [{ ...first[1]!, visibility: 'private' }, { id: first[2]!.id, deleted: true }, { ...first[3]!, name: 'edited', updatedAt: '2027-01-01T00:00:00.000Z' }]);
    await importLines(env.dbFile, [{ ...first[1]!, visibility: 'public' }, { ...first[4]!, visibility: 'private' }]);
    const later = await follow('digimon', fed.cursor);
    expect(later.pages).toBe(1);
    expect(later.changes).toEqual([
      { id: first[2]!.id, change: 'removed' },
      { id: first[3]!.id, change: 'upsert', updatedAt: '2027-01-01T00:00:00.000Z' },
      { id: first[1]!.id, change: 'upsert', updatedAt: first[1]!.updatedAt },
      { id: first[4]!.id, change: 'removed' },
    ]);
    for (const c of later.changes) c.change === 'upsert' ? copy.set(c.id, c.updatedAt!) : copy.delete(c.id);
    expect(copy).toEqual(await publicNow());
    // Nothing new: no changes, the same place.
    const idle = await follow('digimon', later.cursor);
    expect([idle.changes, idle.pages]).toEqual([[], 1]);
  });
});

describe('a late import (updatedAt older than the checkpoint)', () => {
  it('reaches the partner through the feed and syncDecks, which updatedSince never lists', async () => {
    const a = deck('gundam', '2026-11-20T22:00:00.000Z');
    await importLines(env.dbFile, [a]);
    const client = new SnapdeckClient({ baseUrl: env.gateway.base, apiKey: key });
    const copy = new Map<string, string>();
    const apply = async (events: AsyncIterable<DeckSyncEvent>) => {
      for await (const event of events) {
        if (event.type === 'reset') copy.clear();
        if (event.type === 'upsert') copy.set(event.deck.id, event.deck.updatedAt);
        if (event.type === 'removed') copy.delete(event.id);
      }
    };
    const first = client.syncDecks('gundam');
    await apply(first);
    expect(copy.get(a.id)).toBe('2026-11-20T22:00:00.000Z');

    const b = deck('gundam', '2026-11-20T10:00:00.000Z');
    await importLines(env.dbFile, [b]);
    // What updatedSince from the partner's last updatedAt gives: not B.
    const since = await env.client.get('/decks/public?gameId=gundam&updatedSince=2026-11-20T22:00:00.000Z', { 'X-API-Key': key });
    expect(since.body.data.decks.map((d: { id: string }) => d.id)).not.toContain(b.id);

    const second = client.syncDecks('gundam', { checkpoint: first.checkpoint });
    await apply(second);
    expect(copy.get(b.id)).toBe('2026-11-20T10:00:00.000Z');
    // A feed page, its details, and the feed once more (empty): the details' version had nothing newer.
    expect(second.progress).toMatchObject({ requests: 3, upserts: 1, removals: 0, resets: 0 });
  });
});

describe('kept removals', () => {
  it('answers 410 once a removal after the cursor is pruned; syncDecks enumerates again by itself and says so', async () => {
    const d = deck('gundam', '2026-07-01T00:00:00.000Z');
    await importLines(env.dbFile, [d]);
    const client = new SnapdeckClient({ baseUrl: env.gateway.base, apiKey: key });
    const first = client.syncDecks('gundam');
    for await (const _ of first) void _;
    await importLines(env.dbFile, [{ id: d.id, deleted: true }]);
    withDb(env.dbFile, (db) => pruneDeckChanges(db, 30, Date.now() + 31 * 86_400_000));
    const gone = await changes(`gameId=gundam&since=${encodeURIComponent(first.checkpoint!)}`);
    expect([gone.status, gone.body]).toEqual([410, { error: ERRORS.deckCursorGone }]);
    // Precedence: 400 (limit) before 410.
    expect((await changes(`gameId=gundam&limit=x&since=${encodeURIComponent(first.checkpoint!)}`)).body).toEqual({ error: ERRORS.limitNotInteger });

    const events: DeckSyncEvent[] = [];
    const again = client.syncDecks('gundam', { checkpoint: first.checkpoint });
    for await (const event of again) events.push(event);
    expect(events[0]).toEqual({ type: 'reset', reason: 'checkpoint gone' });
    expect(events.some((e) => e.type === 'upsert' && e.deck.id === d.id)).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'checkpoint', checkpoint: again.checkpoint });
    expect((await changes(`gameId=gundam&since=${encodeURIComponent(again.checkpoint!)}`)).status).toBe(200);
  });
});

describe('bad input', () => {
  it('answers every documented error in the contract\'s precedence', async () => {
    const cursor = (await changes('gameId=digimon')).body.data.cursor as string;
    const listing = (await env.client.get('/decks/public?gameId=digimon&limit=1', { 'X-API-Key': key })).body.data.nextCursor as string;
    const noScope = env.gateway.createKey({ name: 'no scope' });
    const other = await tempDir('snapdeck-other-store-');
    const foreign = await startGateway({ port: 0, host: '127.0.0.1', snapshots: env.snapshots, db: join(other.dir, 'other.db'), log: pino({ level: 'silent' }) });
    try {
      const foreignKey = withDb(join(other.dir, 'other.db'), (db) => new KeyStore(db).create({ name: 'other', scopes: BOTH_SCOPES }).key);
      const otherStore = (await (await fetch(`${foreign.url}/v1/decks/changes?gameId=digimon`, { headers: { 'X-API-Key': foreignKey } })).json()) as { data: { cursor: string } };
      const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'AB' : 'AA'}`;
      const cases: Array<[string, Record<string, string>, number, string]> = [
        ['gameId=digimon', {}, 401, ERRORS.apiKeyRequired],
        ['gameId=digimon', { 'X-API-Key': noScope }, 403, ERRORS.insufficientScope],
        ['limit=abc&since=x', { 'X-API-Key': key }, 400, ERRORS.gameIdRequired],
        ['gameId=', { 'X-API-Key': key }, 400, ERRORS.gameIdRequired],
        ['gameId=nope&limit=abc&since=x', { 'X-API-Key': key }, 404, ERRORS.gameNotFound],
        ['gameId=digimon&limit=1.5&since=x', { 'X-API-Key': key }, 400, ERRORS.limitNotInteger],
        ['gameId=digimon&limit=abc', { 'X-API-Key': key }, 400, ERRORS.limitNotInteger],
        [`gameId=gundam&since=${encodeURIComponent(cursor)}`, { 'X-API-Key': key }, 400, ERRORS.invalidCursor],
        [`gameId=digimon&since=${encodeURIComponent(otherStore.data.cursor)}`, { 'X-API-Key': key }, 400, ERRORS.invalidCursor],
        [`gameId=digimon&since=${encodeURIComponent(tampered)}`, { 'X-API-Key': key }, 400, ERRORS.invalidCursor],
        [`gameId=digimon&since=${encodeURIComponent(listing)}`, { 'X-API-Key': key }, 400, ERRORS.invalidCursor],
        [`gameId=digimon&since=${'A'.repeat(2000)}`, { 'X-API-Key': key }, 400, ERRORS.invalidCursor],
      ];
      for (const [query, headers, status, error] of cases) {
        const r = await changes(query, headers);
        expect([r.status, r.body.error], query.slice(0, 80)).toEqual([status, error]);
      }
      // The other store's own gateway refuses this store's cursor too.
      const back = await fetch(`${foreign.url}/v1/decks/changes?gameId=digimon&since=${encodeURIComponent(cursor)}`, { headers: { 'X-API-Key': foreignKey } });
      expect([back.status, ((await back.json()) as { error: string }).error]).toEqual([400, ERRORS.invalidCursor]);
    } finally {
      await foreign.close();
      await other.cleanup();
    }
  });

  it('clamps limit 0 to 1 and 1001 to 1000', async () => {
    const cursor = (await changes('gameId=grand-archive')).body.data.cursor as string;
    await importLines(env.dbFile, Array.from({ length: 1005 }, (_, i) => ({ ...deck('gundam', '2026-08-01T00:00:00.000Z'), gameId: 'grand-archive' as const, cards: [], name: `ga ${i}` })));
    const one = await changes(`gameId=grand-archive&limit=0&since=${encodeURIComponent(cursor)}`);
    expect([one.body.data.changes.length, one.body.data.hasMore]).toEqual([1, true]);
    const most = await changes(`gameId=grand-archive&limit=1001&since=${encodeURIComponent(cursor)}`);
    expect([most.body.data.changes.length, most.body.data.hasMore]).toEqual([1000, true]);
    const rest = await changes(`gameId=grand-archive&limit=-7&since=${encodeURIComponent(most.body.data.cursor)}`);
    expect(rest.body.data.changes).toHaveLength(1);
  });

  it('logs the route by its label and never a cursor whole; /metrics counts the route', async () => {
    const cursor = ((await (await fetch(`${logging.url}/v1/decks/changes?gameId=digimon`, { headers: { 'X-API-Key': key } })).json()) as { data: { cursor: string } }).data.cursor;
    const before = logged.length;
    for (const since of [cursor, `${cursor}x`, 'A'.repeat(600)]) {
      await fetch(`${logging.url}/v1/decks/changes?gameId=digimon&since=${encodeURIComponent(since)}&limit=1.5`, { headers: { 'X-API-Key': key } });
      await fetch(`${logging.url}/v1/decks/changes?gameId=digimon&since=${encodeURIComponent(since)}`, { headers: { 'X-API-Key': key } });
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = logged.slice(before).filter((line) => line.msg === 'request');
    expect(lines).toHaveLength(6);
    for (const line of lines) {
      expect(line.route).toBe('/v1/decks/changes');
      expect(String(line.url)).toMatch(/^\/v1\/decks\/changes\?gameId=digimon&since=\[REDACTED\]/);
      expect(JSON.stringify(line)).not.toContain(cursor.slice(0, 20));
    }
    const metrics = await (await fetch(`${logging.url}/metrics`)).text();
    expect(metrics).toMatch(/snapdeck_http_requests_total\{route="\/v1\/decks\/changes",status="400"\} [1-9]/);
    expect(metrics).toMatch(/snapdeck_http_requests_total\{route="\/v1\/decks\/changes",status="200"\} [1-9]/);
  });
});
