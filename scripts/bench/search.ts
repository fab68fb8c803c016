/**
 * Search benchmark: `npm run bench:search [-- --cards 100000 --sample 0]`. Prints the
 * search targets' table from one run on this machine:
 *   - build time added by the search index (the build against the same build without search
 *     indexes: the baseline measured in the same run; the index builds beside the pages, so
 *     the search step alone says less) and the build's peak RSS (the build process and
 *     Pagefind's binary together), on 100,000 generated Digimon cards;
 *   - a cold client's first query (bytes as sent, brotli, and requests), on 100,000 cards and on
 *     each real catalog (../shared/data/raw, imported); a later query's bytes and Node latency p95;
 *   - on the real catalogs, every distinct card name once and every card id (search/recall.ts says
 *     each figure's queries): recall@5 exact, lower-case, prefix and one typo, recall@1 of the
 *     shortest completion and of ids, and the Node latency p95 of all those queries.
 * Queries go through @snapdeck/client against a real gateway, through a counting proxy (at 100,000
 * cards `snapdeck serve` in its own process).
 * `--cards 0` leaves the generated catalog out (the real catalogs' rows only); `--misses N` prints
 * up to N missed queries of each kind.
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
import { clientFor, countingProxy, firstQuery, percentile, runSampled, type CountingProxy } from './search/measure.ts';
import { DEFINITIONS, KINDS, measure, type Kind } from './search/recall.ts';
import { prng } from '../lib/deck-generator.ts';
import { openDatabase } from '@snapdeck/store';
import { startGatewayProcess } from './lib/process.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : fallback);
const CARDS = option('cards', 100_000);
const MISSES = option('misses', 0);
const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
const MB = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const pct = (hits: number, total: number) => `${((100 * hits) / Math.max(1, total)).toFixed(1)} % (${hits}/${total})`;
const rows: string[][] = [];
const row = (...cells: string[]) => {
  rows.push(cells);
  console.log(`| ${cells.join(' | ')} |`);
};

const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-search-'));
try {
  console.log('| figure | target | measured |\n|---|---|---|');
  if (CARDS > 0) await generated();

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
    const totals = Object.fromEntries(KINDS.map((kind) => [kind, [0, 0]])) as Record<Kind, [number, number]>;
    const latencies: number[] = [];
    let distinctNames = 0;
    for (const game of GAME_SLUGS) {
      const entries = await readCatalog(join(catalog, `${game}.jsonl`), game);
      const cards = entries.map((e) => ({ id: e.id, name: CARD_MODELS[game].nameOf(JSON.parse(e.card.toString('utf8'))) }));
      distinctNames += new Set(cards.map((card) => card.name)).size;
      const first = await firstQuery(proxy2, game, cards[0]!.name);
      row(`first query on ${game} (${cards.length} cards): bytes`, '≤ 300 kB', `${kB(first.bytes)} in ${first.requests} requests`);
      const measured = await measure(game, await clientFor(proxy2).searchIndex(game), cards);
      for (const kind of KINDS) {
        totals[kind][0] += measured.counts[kind][0];
        totals[kind][1] += measured.counts[kind][1];
      }
      latencies.push(...measured.ms);
      console.log(`  ${game}: ${KINDS.map((kind) => `${kind} ${pct(...measured.counts[kind])}`).join(', ')}; latency p95 ${percentile(measured.ms, 95).toFixed(1)} ms`);
      if (MISSES > 0) for (const kind of KINDS) for (const miss of measured.misses[kind].slice(0, MISSES)) console.log(`    missed (${kind}): ${miss}`);
    }
    console.log(`  ${distinctNames.toLocaleString('en')} distinct names, ${totals.id[1].toLocaleString('en')} ids, ${totals.prefix[1].toLocaleString('en')} prefix queries, ${totals.typo[1].toLocaleString('en')} typo queries`);
    row('recall@5 on real card names: exact / lower-case', '100 % / 100 %', `${pct(...totals.exact)} / ${pct(...totals.lower)}`);
    row('recall@5, prefix', '≥ 99.5 %', pct(...totals.prefix));
    row('recall@1, shortest completion', '≥ 97 %', pct(...totals.shortest));
    row('recall@5, one typo', '≥ 99.5 %', pct(...totals.typo));
    row('recall@1 on card ids', '100 %', pct(...totals.id));
    row('query latency on the real catalogs, Node, p95', '≤ 10 ms', `${percentile(latencies, 95).toFixed(1)} ms (median ${percentile(latencies, 50).toFixed(1)} ms; ${latencies.length.toLocaleString('en')} queries, top 5 each, one after another)`);
    console.log(`\n${KINDS.map((kind) => `- ${kind}: ${DEFINITIONS[kind]}`).join('\n')}`);
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

/** 1. The generated catalog (`--cards`, 100,000 by default): build (own process, tree RSS sampled), first and later queries. */
async function generated(): Promise<void> {
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
}
