/**
 * `npm run bench:deck-feed [-- --decks 1000000] [--from FOLDER] [--samples 300]`: what the deck
 * change feed (GET /v1/decks/changes) costs, on one game of N generated decks (default a million;
 * a cached store of bench:store's is reused from tmpdir or --from, else generated):
 *
 * (a) a partner's nightly sync after 1 % of the game's decks changed (80 % edited, 1 % of those
 *     a late batch with an older updatedAt, 10 % made private, 10 % deleted), against a gateway
 *     process: requests and response bytes of the way documented before (updatedSince sync from
 *     the last updatedAt, details 50 a call, then a full enumeration to find removals) and of
 *     syncDecks following the feed, measured in the same run; and how many decks the old way
 *     missed;
 * (b) one page of 1,000 changes from a random cursor: latency over HTTP (p50, p95), and the
 *     store's own read (DeckChangeFeed.page);
 * (c) the published store's delta for 100 imported decks (new, then edits) with the feed's
 *     records against the same database without them (the schema before migration 5);
 * (d) the gateway's resident memory after listing pages and after as many feed pages.
 *
 * Figures vary with the machine's load: note `uptime` beside them. No timed test: the targets are
 * printed beside the figures (docs/benchmarks.md).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { SnapdeckClient } from '@snapdeck/client';
import { FsDriver } from '@snapdeck/snapshot';
import {
  DECK_CURSOR_SECRET, DeckChangeFeed, KeyStore, encodeDeckChangesCursor, getOrCreateSecret, importDecks, openDatabase, publishStore,
} from '@snapdeck/store';
import { writeDefaultCatalog } from '../generate-catalog.ts';
import { SYNTHETIC_TEMPLATES, generateDeckLines } from '../lib/deck-generator.ts';
import { BEFORE_FEED, GAME, nightlyLines, prepare } from './deck-feed/prepare.ts';
import { freePort, rssMB, startGatewayProcess } from './lib/process.ts';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'packages', 'cli', 'bin', 'snapdeck.js');
const args = process.argv.slice(2);
const numberArg = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const stringArg = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)]!;
const load = () => `load ${loadavg().map((v) => v.toFixed(1)).join(' ')}`;

/** Requests and response bytes through a counting fetch. */
function counter() {
  const c = { requests: 0, bytes: 0 };
  const fetcher: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const body = await response.arrayBuffer();
    c.requests += 1;
    c.bytes += body.byteLength;
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { c, fetcher };
}

/** The way docs/partners/syncing-decks.md showed before: updatedSince from the last updatedAt, details, then every id. */
async function documentedBefore(base: string, key: string, since: string): Promise<{ requests: number; bytes: number; seen: Set<string>; live: Set<string> }> {
  const { c, fetcher } = counter();
  const get = async (path: string) => ((await (await fetcher(`${base}${path}`, { headers: { 'X-API-Key': key } })).json()) as { data: any }).data;
  const seen = new Set<string>();
  let startAfter = '';
  for (;;) {
    const page = await get(`/decks/public?gameId=${GAME}&limit=50&updatedSince=${encodeURIComponent(since)}&startAfter=${encodeURIComponent(startAfter)}`);
    const ids = page.decks.map((d: { id: string }) => d.id);
    if (ids.length > 0) await fetcher(`${base}/decks/details`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify({ ids }) });
    for (const id of ids) seen.add(id);
    if (!page.hasMore) break;
    startAfter = page.nextCursor;
  }
  const live = new Set<string>();
  startAfter = '';
  for (;;) {
    const page = await get(`/decks/public?gameId=${GAME}&limit=50&sort=createdAt&startAfter=${encodeURIComponent(startAfter)}`);
    for (const d of page.decks) live.add(d.id);
    if (!page.hasMore) break;
    startAfter = page.nextCursor;
  }
  return { requests: c.requests, bytes: c.bytes, seen, live };
}

async function main(): Promise<void> {
  const count = numberArg('--decks', 1_000_000);
  const samples = numberArg('--samples', 300);
  const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-deck-feed-'));
  console.log(`snapdeck deck change feed benchmark — ${new Date().toISOString()}, node ${process.version}, ${load()}`);
  try {
    const prepared = await prepare(count, work, stringArg('--from'));
    console.log(`one game of ${count.toLocaleString('en')} decks; migration 5 (change numbers, the feed's index) on it: ${(prepared.migrationMs / 1000).toFixed(1)} s`);
    writeDefaultCatalog(join(work, 'catalog'));
    if (spawnSync(process.execPath, [cli, 'build', '--catalog', join(work, 'catalog'), '--out', join(work, 'snapshots')], { stdio: ['ignore', 'ignore', 'inherit'] }).status !== 0) throw new Error('build failed');

    // (c) first, on fresh copies: the delta of 100 imported decks, without and with the feed's records.
    console.log(`\n(c) published store delta for 100 imported decks (${load()})`);
    for (const [label, file, migrations] of [['before the feed', prepared.before, BEFORE_FEED], ['with the feed', prepared.feed, undefined]] as const) {
      const db = openDatabase(file, migrations);
      const driver = new FsDriver(join(work, `store-${label.replace(/ /g, '-')}`));
      await publishStore(db, driver);
      const sent: string[] = [];
      await importDecks(db, generateDeckLines({ seed: 77, count: 100, templates: SYNTHETIC_TEMPLATES.filter((t) => t.gameId === GAME), privateShare: 0 }));
      sent.push(mb((await publishStore(db, driver)).bytesSent));
      // 80 edited, 10 made private, 10 deleted: the same lines for both databases.
      await importDecks(db, nightlyLines(db, 100, Date.parse('2030-01-01T00:00:00Z')).lines);
      sent.push(mb((await publishStore(db, driver)).bytesSent));
      db.close();
      console.log(`    ${label.padEnd(16)}: 100 new decks ${sent[0]}, 100 changed decks ${sent[1]} sent (deflated page deltas)`);
    }

    // (a) the nightly sync, (b) page latency, (d) memory: a gateway process on the migrated database.
    const db = openDatabase(prepared.feed);
    const key = new KeyStore(db).create({ name: 'bench', scopes: ['decks:browse:public', 'decks:read:public'], quota: 1_000_000_000 }).key;
    const syncedUpTo = db.prepare<[string], number>("SELECT MAX(updated_at) FROM decks WHERE game_id = ? AND visibility = 'public'").pluck().get(GAME)!;
    const { gateway, base } = await startGatewayProcess(cli, await freePort(), join(work, 'snapshots'), prepared.feed, ['--address-quota', '1000000000']);
    try {
      const client = new SnapdeckClient({ baseUrl: base, apiKey: key });
      const checkpoint = (await client.getDeckChanges(GAME)).cursor;
      const night = nightlyLines(db, Math.round(count / 100), syncedUpTo);
      await importDecks(db, night.lines);
      console.log(`\n(a) nightly sync after ${night.lines.length.toLocaleString('en')} changes (${night.late.length} of them a late batch) in a game of ${count.toLocaleString('en')} decks (${load()})`);
      let t = performance.now();
      const before = await documentedBefore(base, key, new Date(syncedUpTo).toISOString());
      const beforeMs = performance.now() - t;
      const { c, fetcher } = counter();
      t = performance.now();
      const sync = new SnapdeckClient({ baseUrl: base, apiKey: key, fetch: fetcher }).syncDecks(GAME, { checkpoint });
      const changed = new Set<string>();
      for await (const event of sync) if (event.type === 'upsert' || event.type === 'removed') changed.add(event.type === 'upsert' ? event.deck.id : event.id);
      const afterMs = performance.now() - t;
      const missed = night.late.filter((id) => !before.seen.has(id)).length;
      console.log('    way                                   | requests | bytes      | time    | late imports missed');
      console.log(`    updatedSince sync + full enumeration  | ${String(before.requests).padStart(8)} | ${mb(before.bytes).padStart(10)} | ${(beforeMs / 1000).toFixed(1).padStart(5)} s | ${missed} of ${night.late.length}`);
      console.log(`    syncDecks (the change feed)           | ${String(c.requests).padStart(8)} | ${mb(c.bytes).padStart(10)} | ${(afterMs / 1000).toFixed(1).padStart(5)} s | 0 (${changed.size.toLocaleString('en')} decks changed)`);
      console.log(`    ${(before.requests / c.requests).toFixed(0)}× fewer requests (target ≥ 50×), ${(before.bytes / c.bytes).toFixed(1)}× fewer bytes`);

      // (b) pages of 1,000 changes from random cursors.
      const cursorKey = getOrCreateSecret(db, DECK_CURSOR_SECRET);
      const { head, epoch } = db.prepare<[], { head: number; epoch: string }>("SELECT head, (SELECT value FROM settings WHERE name = 'deck_changes_epoch') AS epoch FROM deck_change_log").get()!;
      const feed = DeckChangeFeed.of(db);
      const http: number[] = [];
      const store: number[] = [];
      // Baseline, measured in turn with the feed's pages: a listing page of 50 (the enumeration's unit).
      const listing: number[] = [];
      for (let i = 0; i < samples; i++) {
        const position = Math.floor(Math.random() * (head - 2000));
        const since = encodeDeckChangesCursor(cursorKey, { game: GAME, epoch, position, watermark: head });
        t = performance.now();
        const response = await fetch(`${base}/decks/changes?gameId=${GAME}&limit=1000&since=${encodeURIComponent(since)}`, { headers: { 'X-API-Key': key } });
        const page = (await response.json()) as { data: { changes: unknown[] } };
        http.push(performance.now() - t);
        if (page.data.changes.length < 990) throw new Error(`a page of ${page.data.changes.length} changes`);
        t = performance.now();
        feed.page(cursorKey, GAME, since, 1000);
        store.push(performance.now() - t);
        t = performance.now();
        await (await fetch(`${base}/decks/public?gameId=${GAME}&limit=50&sort=${i % 2 ? 'createdAt' : 'updatedAt'}`, { headers: { 'X-API-Key': key } })).arrayBuffer();
        listing.push(performance.now() - t);
      }
      console.log(`\n(b) a page of 1,000 changes at ${count.toLocaleString('en')} decks, ${samples} random cursors (${load()}): over HTTP p50 ${quantile(http, 0.5).toFixed(1)} ms, p95 ${quantile(http, 0.95).toFixed(1)} ms (target ≤ 20 ms); the store's read p50 ${quantile(store, 0.5).toFixed(1)} ms, p95 ${quantile(store, 0.95).toFixed(1)} ms; baseline in turn, a listing page of 50 over HTTP: p50 ${quantile(listing, 0.5).toFixed(1)} ms, p95 ${quantile(listing, 0.95).toFixed(1)} ms (feed page / listing page p50 ${(quantile(http, 0.5) / quantile(listing, 0.5)).toFixed(1)}×)`);

      // (d) memory of the gateway process: after listing pages, then after feed pages.
      const pages = async (path: (i: number) => string) => {
        for (let i = 0; i < 500; i++) await (await fetch(`${base}${path(i)}`, { headers: { 'X-API-Key': key } })).arrayBuffer();
      };
      await pages((i) => `/decks/public?gameId=${GAME}&limit=50&sort=${['updatedAt', 'createdAt', 'copyCount'][i % 3]}`);
      const listed = rssMB(gateway.pid!);
      await pages(() => `/decks/changes?gameId=${GAME}&limit=1000&since=${encodeURIComponent(encodeDeckChangesCursor(cursorKey, { game: GAME, epoch, position: Math.floor(Math.random() * (head - 2000)), watermark: head }))}`);
      const fed = rssMB(gateway.pid!);
      console.log(`\n(d) gateway RSS after 500 listing pages ${listed.rss.toFixed(0)} MB, after 500 more pages of 1,000 changes ${fed.rss.toFixed(0)} MB (peak ${fed.peak.toFixed(0)} MB)`);
    } finally {
      gateway.kill('SIGTERM');
      db.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
