/**
 * GET /v1/games/{slug}/changes (decisions.md "Card changes") against a real gateway over
 * builds of edited catalogs: change records, the net change, paging pinned like a walk, every
 * status and its precedence, ETag/304, brotli/gzip, and records outliving gc'd versions.
 */
import { spawnSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { FsDriver, collectGarbage } from '@snapdeck/snapshot';
import { allChanges, buildCards, renamed, walkAll, type Card } from './helpers/card-changes.ts';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, waitFor, type TestGateway } from './helpers/harness.ts';

const GAME = 'gundam';
let dir: string;
let cleanup: () => Promise<void>;
let gateway: TestGateway;
let headers: Record<string, string>;
let pool: Card[];
const versions: string[] = [];
const catalogs: Card[][] = [];
const catalogDir = () => join(dir, 'catalog');
const snapshots = () => join(dir, 'snapshots');

async function publish(cards: Card[]): Promise<string> {
  const result = await buildCards(catalogDir(), snapshots(), GAME, cards);
  versions.push(result.version);
  catalogs.push(cards);
  // The gateway picks a new pointer up in the background: wait until it serves this version.
  if (gateway) await waitFor(async () => (await getJson(`${gateway.url}/readyz`)).body?.versions?.[GAME] === result.version, 10_000, `never served ${result.version}`);
  return result.version;
}

const changesUrl = (query: string, game = GAME) => `${gateway.base}/games/${game}/changes?${query}`;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-changes-'));
  // Every public game has a version (readiness); the test edits gundam.
  pool = (await writeGeneratedCatalog(catalogDir(), { gundam: 60, digimon: 2, 'grand-archive': 2, 'chrono-core': 2 }))[GAME] as Card[];
  await buildCards(catalogDir(), snapshots(), 'digimon', (await writeGeneratedCatalog(join(dir, 'other'), { digimon: 2 })).digimon as Card[]);
  for (const game of ['grand-archive', 'chrono-core'] as const) {
    await buildCards(catalogDir(), snapshots(), game, (await writeGeneratedCatalog(join(dir, 'other'), { [game]: 2 }))[game] as Card[]);
  }
  await publish(pool.slice(0, 40));
  gateway = await startTestGateway({ snapshots: snapshots(), db: join(dir, 'snapdeck.db'), pointerTtlMs: 0 });
  headers = { 'X-API-Key': gateway.createKey() };
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

/** The current version as a partner's copy: id → hit. */
async function current(): Promise<Map<string, unknown>> {
  return (await walkAll(gateway.base, GAME, headers)).hits;
}

/** A partner's copy after applying every page of changes since `since` to `copy`. */
async function synced(copy: Map<string, unknown>, since: string, limit?: number): Promise<{ copy: Map<string, unknown>; toVersion: string; pages: number }> {
  const result = await allChanges(gateway.base, GAME, since, headers, limit);
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  const ids = result.changes.map((c) => c.cardId);
  expect(ids, 'each card at most once, by card id').toEqual([...new Set(ids)].sort());
  const next = new Map(copy);
  for (const change of result.changes) change.change === 'upsert' ? next.set(change.cardId, change.hit) : next.delete(change.cardId);
  return { copy: next, toVersion: result.toVersion, pages: result.pages };
}

describe('change records and GET /changes', () => {
  it('card pages carry indexVersion, the version walked', async () => {
    const walk = await walkAll(gateway.base, GAME, headers);
    expect(walk.version).toBe(versions[0]);
    const page = await getJson(`${gateway.base}/games/${GAME}/cards?hitsPerPage=7`, headers);
    expect(page.body.data.indexVersion).toBe(versions[0]);
  });

  it('records what a build added, changed and removed, and the net change from there to current', async () => {
    const before = await current();
    // Edit 2, remove 1 (GD…01 of the pool's first), add 3.
    const next = [...pool.slice(1, 40).map((card, i) => (i < 2 ? renamed(card, `Edited ${i}`) : card)), ...pool.slice(40, 43)];
    const v2 = await publish(next);
    const record = await getJson(changesUrl(`since=${versions[0]}`), headers);
    expect(record.status).toBe(200);
    expect(record.body.data.fromVersion).toBe(versions[0]);
    expect(record.body.data.toVersion).toBe(v2);
    expect(record.body.data.cursor).toBeNull();
    const summary = record.body.data.changes.map((c: { cardId: string; change: string }) => `${c.change} ${c.cardId}`);
    expect(summary).toEqual([
      `delete ${pool[0]!.id}`, `upsert ${pool[1]!.id}`, `upsert ${pool[2]!.id}`, `upsert ${pool[40]!.id}`, `upsert ${pool[41]!.id}`, `upsert ${pool[42]!.id}`,
    ]);
    const { copy } = await synced(before, versions[0]!);
    expect(copy).toEqual(await current());
  });

  it('an unchanged rebuild publishes and records nothing; since = current answers no changes', async () => {
    const records = await readdir(join(snapshots(), GAME, 'changes'));
    const again = await buildCards(catalogDir(), snapshots(), GAME, catalogs.at(-1)!);
    expect(again.alreadyCurrent).toBe(true);
    expect(await readdir(join(snapshots(), GAME, 'changes'))).toEqual(records);
    const r = await getJson(changesUrl(`since=${versions.at(-1)}`), headers);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ fromVersion: versions.at(-1), toVersion: versions.at(-1), changes: [], cursor: null });
  });

  it('nets several builds: a card added then removed is absent, pages are pinned to the first page\'s version', async () => {
    const fromFirst = await current(); // copy at versions[1]
    const v1Copy = new Map(fromFirst);
    const added = pool[45]!;
    await publish([...catalogs.at(-1)!, added]);
    await publish([...catalogs.at(-1)!.filter((card) => card.id !== added.id && card.id !== pool[5]!.id).map((card) => (card.id === pool[6]!.id ? renamed(card, 'Edited again') : card))]);
    const net = await allChanges(gateway.base, GAME, versions[1]!, headers);
    expect(net.changes.map((c) => c.cardId)).not.toContain(added.id);
    expect(net.changes.map((c) => `${c.change} ${c.cardId}`)).toEqual([`delete ${pool[5]!.id}`, `upsert ${pool[6]!.id}`]);

    // limit=1: one change per page; a build between pages does not move them.
    const first = await getJson(changesUrl(`since=${versions[1]}&limit=1`), headers);
    const pinned = first.body.data.toVersion;
    await publish([...catalogs.at(-1)!, pool[50]!]);
    const second = await getJson(changesUrl(`since=${versions[1]}&limit=1&cursor=${encodeURIComponent(first.body.data.cursor)}`), headers);
    expect(second.status).toBe(200);
    expect(second.body.data.toVersion).toBe(pinned);
    expect(second.body.data.cursor).toBeNull();
    expect(second.headers.get('cache-control')).toContain('immutable');
    // From versions[0], in pages of 2, across every build: the copy ends equal to the walk.
    const fromStart = await synced(new Map([...(await walkFromCatalog(0))]), versions[0]!, 2);
    expect(fromStart.toVersion).toBe(versions.at(-1));
    expect(fromStart.pages).toBeGreaterThan(1);
    expect(fromStart.copy).toEqual(await current());
    expect((await synced(v1Copy, versions[1]!)).copy).toEqual(await current());
  });

  it('answers every error in the order of decisions.md', async () => {
    const exhausted = gateway.createKey({ quota: 1 });
    await getJson(changesUrl(`since=${versions[0]}`), { 'X-API-Key': exhausted });
    const cases: Array<[string, Record<string, string>, number, string]> = [
      [changesUrl(`since=${versions[0]}`), {}, 401, ERRORS.apiKeyRequired],
      [changesUrl(''), { 'X-API-Key': 'sd_live_00000000000000000000000000000000' }, 401, ERRORS.invalidApiKey],
      [changesUrl('', 'nope'), { 'X-API-Key': exhausted }, 429, ERRORS.rateLimitExceeded],
      [changesUrl('limit=x', 'nope'), headers, 400, ERRORS.sinceRequired],
      [changesUrl('since=&limit=x'), headers, 400, ERRORS.sinceRequired],
      [changesUrl(`since=garbage&limit=x`, 'nope'), headers, 404, ERRORS.gameNotFound],
      [changesUrl(`since=garbage&limit=x`, 'chrono-core-playtest'), headers, 404, ERRORS.gameNotFound],
      [changesUrl(`since=garbage&limit=1.5`), headers, 400, ERRORS.limitNotInteger],
      [changesUrl(`since=garbage&cursor=abc`), headers, 400, ERRORS.invalidCursor],
      [changesUrl(`since=garbage`), headers, 410, ERRORS.versionGone],
      [changesUrl(`since=2020-01-01T00-00-00-000Z-abcdef`), headers, 410, ERRORS.versionGone],
      // A version of another game is not a version of this one.
      [changesUrl(`since=${versions[0]}`, 'digimon'), headers, 410, ERRORS.versionGone],
    ];
    for (const [url, h, status, error] of cases) {
      const r = await getJson(url, h);
      expect([r.status, r.body], url).toEqual([status, { error }]);
      expect(r.headers.get('cache-control'), url).toBe('no-store');
    }
  });

  it('refuses a cursor for another since, limit or game, or tampered', async () => {
    const first = await getJson(changesUrl(`since=${versions[0]}&limit=2`), headers);
    const cursor: string = first.body.data.cursor;
    expect(cursor).toEqual(expect.any(String));
    const [payload, signature] = cursor.split('.') as [string, string];
    const forged = `${Buffer.from(Buffer.from(payload, 'base64url').toString().replace(/\|2\|2$/, '|2|4')).toString('base64url')}.${signature}`;
    for (const url of [
      changesUrl(`since=${versions[1]}&limit=2&cursor=${encodeURIComponent(cursor)}`),
      changesUrl(`since=${versions[0]}&limit=3&cursor=${encodeURIComponent(cursor)}`),
      changesUrl(`since=${versions[0]}&cursor=${encodeURIComponent(cursor)}`, 'digimon'),
      changesUrl(`since=${versions[0]}&limit=2&cursor=${encodeURIComponent(forged)}`),
      changesUrl(`since=${versions[0]}&limit=2&cursor=${encodeURIComponent(`${cursor}x`)}`),
    ]) {
      const r = await getJson(url, headers);
      expect([r.status, r.body], url).toEqual([400, { error: ERRORS.invalidCursor }]);
    }
    expect((await getJson(changesUrl(`since=${versions[0]}&limit=2&cursor=${encodeURIComponent(cursor)}`), headers)).status).toBe(200);
  });

  it('clamps limit to 1..1000, has an ETag answered 304, and comes in brotli and gzip', async () => {
    const one = await getJson(changesUrl(`since=${versions[0]}&limit=0`), headers);
    expect(one.body.data.changes).toHaveLength(1);
    const all = await getJson(changesUrl(`since=${versions[0]}&limit=5000`), headers);
    expect(all.body.data.cursor).toBeNull();
    const plain = await fetch(changesUrl(`since=${versions[0]}&limit=2`), { headers: { ...headers, 'Accept-Encoding': 'identity' } });
    const text = Buffer.from(await plain.arrayBuffer());
    const etag = plain.headers.get('etag')!;
    expect(plain.headers.get('vary')).toBe('Accept-Encoding, X-API-Key');
    const again = await fetch(changesUrl(`since=${versions[0]}&limit=2`), { headers: { ...headers, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    for (const [coding, decode] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
      const r = await rawGet(changesUrl(`since=${versions[0]}&limit=2`), { ...headers, 'Accept-Encoding': coding });
      expect(r.headers['content-encoding']).toBe(coding);
      expect(decode(r.body).equals(text)).toBe(true);
    }
  });

  it('snapdeck gc --keep-changes-days: a dry run names the records it would delete; a bad value is refused', async () => {
    const cli = join(import.meta.dirname, '..', 'packages', 'cli', 'bin', 'snapdeck.js');
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, 'gc', '--out', snapshots(), '--game', GAME, ...args], { encoding: 'utf8' });
    const dry = run('--keep-changes-days', '0', '--dry-run');
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`dry run: would delete ${versions.length - 1} card change record(s) older than 0 day(s)`);
    expect(await readdir(join(snapshots(), GAME, 'changes'))).toHaveLength(versions.length);
    const bad = run('--keep-changes-days', 'soon');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('must be a number of days');
    expect(run('--help').stdout).toContain('--keep-changes-days');
  });

  it('change records outlive the versions gc removes, until --keep-changes-days', async () => {
    const storage = new FsDriver(snapshots());
    const result = await collectGarbage({ storage, games: [GAME], keep: 1, minAgeHours: 0 });
    expect(result.deletedVersions).toBeGreaterThan(0);
    expect(result.deletedChangeRecords).toBe(0);
    // Versions 0..n-2 have no pages any more, yet a sync from the first still works.
    const from = await synced(await walkFromCatalog(0), versions[0]!);
    expect(from.copy).toEqual(await current());
    // 31 days later, records past 30 days go, except the current version's.
    const later = new Date(Date.now() + 31 * 86_400_000);
    const aged = await collectGarbage({ storage, games: [GAME], keep: 1, minAgeHours: 0, now: later });
    expect(aged.deletedChangeRecords).toBe(versions.length - 1);
    expect((await getJson(changesUrl(`since=${versions[0]}`), headers)).status).toBe(410);
    expect((await getJson(changesUrl(`since=${versions.at(-3)}`), headers)).status).toBe(410);
    // The current version's own record stays: a partner one build behind still syncs.
    expect((await getJson(changesUrl(`since=${versions.at(-2)}`), headers)).status).toBe(200);
    expect((await getJson(changesUrl(`since=${versions.at(-1)}`), headers)).status).toBe(200);
  });
});

/** The hits of the catalog `versions[i]` was built from, as the walk of that version served them (by id). */
async function walkFromCatalog(i: number): Promise<Map<string, unknown>> {
  // The version's pages may be gone: its hits are the catalog's cards through the game's model.
  const { CARD_MODELS } = await import('@snapdeck/contract');
  const model = CARD_MODELS[GAME];
  return new Map(catalogs[i]!.map((card) => [card.id, JSON.parse(JSON.stringify(model.toHit(model.card.parse(card))))]));
}

/** GET without fetch's transparent decompression: the bytes as sent. */
async function rawGet(url: string, h: Record<string, string>): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(url, { headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}
