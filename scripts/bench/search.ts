/**
 * Search benchmark: `npm run bench:search [-- --cards 100000 --sample 0]`. Prints the
 * search targets' table from one run on this machine:
 *   - build time added by the search index (the build against the same build without search
 *     indexes: the baseline measured in the same run; the index builds beside the pages, so
 *     the search step alone says less) and the build's peak RSS (the build process and
 *     Pagefind's binary together), on 100,000 generated Digimon cards;
 *   - a cold client's first query (bytes as sent, brotli, and requests), on 100,000 cards and on
 *     each real catalog (../shared/data/raw, imported); a later query's bytes and Node latency p95;
 *   - recall@5 on every real card name: exact, lower-case, prefix (typed up to the first 4 letters
 *     of its last word of 5+ letters), one seeded typo (names of 6+ letters), and recall@1 on ids.
 * Queries go through @snapdeck/client against a real gateway, through a counting proxy (at 100,000
 * cards `snapdeck serve` in its own process).
 * `--sample N` takes N names per catalog and kind instead of all (0: all).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CARD_MODELS, GAME_SLUGS, type GameSlug } from '@snapdeck/contract';
import { startGateway } from '@snapdeck/gateway';
import { FsDriver, build, readCatalog } from '@snapdeck/snapshot';
import { generateCatalog } from '../generate-catalog.ts';
import { importRealCatalog, realDataDir } from '../import-real.ts';
import { clientFor, countingProxy, firstQuery, percentile, prefixOf, runSampled, typoOf, type CountingProxy } from './search/measure.ts';
import { prng } from '../lib/deck-generator.ts';
import { openDatabase } from '@snapdeck/store';
import { startGatewayProcess } from './lib/process.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : fallback);
const CARDS = option('cards', 100_000);
const SAMPLE = option('sample', 0);
const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
const MB = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const pct = (hits: number, total: number) => `${((100 * hits) / Math.max(1, total)).toFixed(1)} % (${hits}/${total})`;
type Kind = 'exact' | 'lower' | 'prefix' | 'typo' | 'id';
const rows: string[][] = [];
const row = (...cells: string[]) => {
  rows.push(cells);
  console.log(`| ${cells.join(' | ')} |`);
};

const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-search-'));
const sampled = <T>(values: T[]) => (SAMPLE > 0 ? values.filter((_v, i) => i % Math.max(1, Math.floor(values.length / SAMPLE)) === 0).slice(0, SAMPLE) : values);
try {
  console.log('| figure | target | measured |\n|---|---|---|');

  // 1. 100,000 generated cards: build (own process, tree RSS sampled), first and later queries.
  const bigCatalog = join(work, 'big-catalog');
  const bigSnapshots = join(work, 'big-snapshots');
  await (await import('node:fs/promises')).mkdir(bigCatalog, { recursive: true });
  const lines: string[] = [];
  for (const card of generateCatalog({ game: 'digimon', count: CARDS, seed: 19 })) lines.push(JSON.stringify(card));
  await writeFile(join(bigCatalog, 'digimon.jsonl'), lines.join('\n') + '\n');
  const names = lines.map((line) => (JSON.parse(line) as { name: { english: string } }).name.english);
  lines.length = 0;
  // The baseline, in the same run: the same build without search indexes (its own folder).
  const child = join(ROOT, 'scripts/bench/search/build-child.ts');
  type ChildResult = { seconds: number; searchSeconds: number; nodeMaxRssKiB: number };
  const parse = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!) as ChildResult;
  const plain = await runSampled(process.execPath, ['--import', 'tsx', child, bigCatalog, join(work, 'big-plain'), '--without-search', 'digimon']);
  if (plain.code !== 0) throw new Error(`the ${CARDS}-card build without search failed`);
  await rm(join(work, 'big-plain'), { recursive: true, force: true });
  const built = await runSampled(process.execPath, ['--import', 'tsx', child, bigCatalog, bigSnapshots, 'digimon']);
  if (built.code !== 0) throw new Error(`the ${CARDS}-card build failed`);
  const a = parse(plain.stdout);
  const b = parse(built.stdout);
  row(`build time added, ${CARDS.toLocaleString('en')} cards`, '≤ 60 s', `${(b.seconds - a.seconds).toFixed(1)} s (${b.seconds.toFixed(1)} s against ${a.seconds.toFixed(1)} s without search: ×${(b.seconds / a.seconds).toFixed(2)}; ${b.searchSeconds.toFixed(1)} s of it waiting for the index after the pages)`);
  row('build peak RSS (build process + Pagefind binary)', '< 1 GiB', `${(built.peakTreeKiB / 1024).toFixed(0)} MiB (build process alone ${(b.nodeMaxRssKiB / 1024).toFixed(0)} MiB; without search ${(plain.peakTreeKiB / 1024).toFixed(0)} MiB)`);

  // The gateway in its own process (`snapdeck serve`, pinned to core 0 like every benchmarked
  // server), as partners meet it; this process is the client (not pinned: one core for the
  // client's engine, its garbage collector and the counting proxy made its queries slower).
  openDatabase(join(work, 'big.db')).close(); // serve opens an existing database only
  const { gateway, base } = await startGatewayProcess(join(ROOT, 'packages/cli/bin/snapdeck.js'), 18797, bigSnapshots, join(work, 'big.db'), ['--search-quota', '1000000000', '--drain-ms', '0']);
  const proxy = await countingProxy(base.replace(/\/v1$/, ''));
  const rand = prng(19);
  const firsts = [];
  for (let i = 0; i < 3; i++) firsts.push(await firstQuery(proxy, 'digimon', names[Math.floor(rand() * names.length)]!));
  const worst = firsts.reduce((a, c) => (c.bytes > a.bytes ? c : a));
  row(`first query, cold client, ${CARDS.toLocaleString('en')} cards: bytes / requests`, '≤ 1.5 MB / ≤ 20', `${MB(worst.bytes)} / ${worst.requests} (worst of 3 cold clients; ${worst.ms.toFixed(0)} ms)`);
  const later = await laterQueries(proxy, 'digimon', names, rand);
  row('a later query: bytes / Node latency p95', '≤ 64 kB / ≤ 50 ms', `${kB(later.bytesP95)} p95 (median ${kB(later.bytesMedian)}) / ${later.p95.toFixed(1)} ms (100 queries of card names, top 10 hits each; the gateway in its own process)`);
  // Facet counts are asked for (searchCards' `facets: true`): Pagefind counts with a scan per hit.
  const counted = await laterQueries(proxy, 'digimon', names, rand, { facets: true, queries: 20 });
  row('a later query with facet counts (`facets: true`): bytes / Node latency p95', '(not a target)', `${kB(counted.bytesP95)} p95 / ${counted.p95.toFixed(1)} ms (median ${counted.p50.toFixed(1)} ms; 20 queries, after the filter data's first download)`);
  await proxy.close();
  gateway.kill('SIGTERM');
  await new Promise((resolve) => gateway.once('exit', resolve));
  await rm(bigSnapshots, { recursive: true, force: true });

  // 2. The real catalogs: first query, recall.
  const raw = realDataDir();
  if (!raw) {
    console.log('(../shared/data/raw is not here: the real-catalog rows are not measured)');
  } else {
    const catalog = join(work, 'real-catalog');
    const snapshots = join(work, 'real-snapshots');
    importRealCatalog({ raw, out: catalog });
    await build({ catalogDir: catalog, storage: new FsDriver(snapshots), hitsPerPage: [100] });
    const gateway2 = await startGateway({ port: 0, host: '127.0.0.1', snapshots, db: join(work, 'real.db'), searchQuota: 1e9, log: (await import('pino')).pino({ level: 'silent' }) });
    const proxy2 = await countingProxy(gateway2.url);
    const totals: Record<Kind, [number, number]> = { exact: [0, 0], lower: [0, 0], prefix: [0, 0], typo: [0, 0], id: [0, 0] };
    for (const game of GAME_SLUGS) {
      const entries = await readCatalog(join(catalog, `${game}.jsonl`), game);
      const cards = entries.map((e) => ({ id: e.id, name: CARD_MODELS[game].nameOf(JSON.parse(e.card.toString('utf8'))) }));
      const first = await firstQuery(proxy2, game, cards[0]!.name);
      row(`first query on ${game} (${cards.length} cards): bytes`, '≤ 300 kB', `${kB(first.bytes)} in ${first.requests} requests`);
      const r = await recall(proxy2, game, cards);
      for (const [kind, [hit, total]] of Object.entries(r) as Array<[Kind, [number, number]]>) {
        totals[kind][0] += hit;
        totals[kind][1] += total;
      }
      console.log(`  ${game}: ${Object.entries(r).map(([k, [h, t]]) => `${k} ${pct(h, t)}`).join(', ')}`);
    }
    row('recall@5 on real card names: exact / lower-case / prefix / one typo', '100 % / 100 % / ≥ 95 % / ≥ 90 %', [totals.exact, totals.lower, totals.prefix, totals.typo].map(([h, t]) => pct(h, t)).join(' / '));
    row('recall@1 on card ids', '100 %', pct(totals.id[0], totals.id[1]));
    await proxy2.close();
    await gateway2.close();
  }
} finally {
  await rm(work, { recursive: true, force: true });
}

async function laterQueries(proxy: CountingProxy, game: GameSlug, names: string[], rand: () => number, { facets = false, queries = 100 } = {}) {
  const index = await clientFor(proxy).searchIndex(game);
  await index.search(names[0]!, { limit: 10, facets });
  const bytes: number[] = [];
  const ms: number[] = [];
  for (let i = 0; i < queries; i++) {
    const name = names[Math.floor(rand() * names.length)]!;
    const before = proxy.bytes;
    const started = performance.now();
    await index.search(name, { limit: 10, facets });
    ms.push(performance.now() - started);
    bytes.push(proxy.bytes - before);
  }
  return { bytesP95: percentile(bytes, 95), bytesMedian: percentile(bytes, 50), p95: percentile(ms, 95), p50: percentile(ms, 50) };
}

/** Recall of one catalog: a name query succeeds when a hit of that name is among the top 5; an id query when the first hit is that card. */
async function recall(proxy: CountingProxy, game: GameSlug, cards: Array<{ id: string; name: string }>) {
  const index = await clientFor(proxy).searchIndex(game);
  const unique = sampled([...new Set(cards.map((c) => c.name))]);
  const rand = prng(1919);
  const found = async (query: string, name: string) => (await index.search(query, { limit: 5 })).hits.some((h) => CARD_MODELS[game].nameOf(h as never).toLowerCase() === name.toLowerCase());
  const result: Record<Kind, [number, number]> = { exact: [0, 0], lower: [0, 0], prefix: [0, 0], typo: [0, 0], id: [0, 0] };
  const count = async (kind: Kind, ok: Promise<boolean>) => {
    result[kind][1] += 1;
    if (await ok) result[kind][0] += 1;
  };
  for (const name of unique) {
    await count('exact', found(name, name));
    await count('lower', found(name.toLowerCase(), name));
    const prefix = prefixOf(name);
    if (prefix) await count('prefix', found(prefix, name));
    if (name.replace(/[^\p{L}]/gu, '').length >= 6 && /[\p{L}\p{N}]{4,}/u.test(name)) await count('typo', found(typoOf(name, rand), name));
  }
  for (const card of sampled(cards)) await count('id', index.search(card.id, { limit: 1 }).then((r) => r.hits[0]?.id === card.id));
  return result;
}
