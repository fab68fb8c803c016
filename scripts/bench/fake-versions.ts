/**
 * Made-up versions against a real gateway: what a keyless client sending well-formed but
 * nonexistent version names (`/v1/search/{name}/2020-01-01T00-00-00-000Z-00000N/…`) costs the
 * partners walking an older, kept version. Prints, from one run:
 *   - an older version's search file, cached: the median of 50 requests (the baseline);
 *   - the same request right after 1,000 made-up-version requests, median of 5 rounds, as a ratio
 *     to the baseline (target: at most 2×);
 *   - one made-up-version request, against one request for the search descriptor.
 *
 * The gateway is `snapdeck serve` in its own process (pinned to core 0 when taskset exists,
 * LOG_LEVEL=silent), over three versions of the default catalog's digimon cards (the largest
 * index), the oldest two kept as gc would keep them. Requests are sent one at a time.
 *
 * Usage: npm run bench:fake-versions [-- --fakes 1000 --rounds 5 --cli path/to/snapdeck.js]
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SEARCH_PATHS, findGame } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { openDatabase } from '@snapdeck/store';
import { freePort, startGatewayProcess } from './lib/process.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    fakes: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '5' },
    cli: { type: 'string', default: join(root, 'packages', 'cli', 'bin', 'snapdeck.js') },
  },
});
const FAKES = Number(values.fakes);
const ROUNDS = Number(values.rounds);
const GAME = 'digimon';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(url: string, expected: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== expected) throw new Error(`${url}: ${response.status}, expected ${expected}`);
  return ms;
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-fake-'));
  try {
    const catalog = join(work, 'catalog');
    const lines = (await readFile(join(root, 'data', 'catalog', `${GAME}.jsonl`), 'utf8')).trimEnd().split('\n');
    const versions: string[] = [];
    await mkdir(catalog);
    // Three versions: the catalog less two cards, less one, whole.
    for (const drop of [2, 1, 0]) {
      await writeFile(join(catalog, `${GAME}.jsonl`), `${lines.slice(drop).join('\n')}\n`);
      const [result] = await build({ catalogDir: catalog, storage: new FsDriver(join(work, 'snapshots')), games: [GAME] });
      versions.push(result!.version);
    }
    const db = join(work, 'gateway.db');
    openDatabase(db).close();
    const port = await freePort();
    // Quotas above what the run sends: this measures the version cache, not the per-address limits
    // (variables, not flags, so that an older CLI given with --cli, which metered search in the
    // deck-view bucket, starts too).
    Object.assign(process.env, { SNAPDECK_SEARCH_QUOTA: '1000000', SNAPDECK_ADDRESS_QUOTA: '1000000' });
    const { gateway } = await startGatewayProcess(values.cli!, port, join(work, 'snapshots'), db);
    try {
      const origin = `http://127.0.0.1:${port}`;
      const name = findGame(GAME)!.searchIndexName;
      const oldFile = `${origin}${SEARCH_PATHS.base(name, versions[0]!)}pagefind-entry.json`;
      for (let i = 0; i < 20; i++) await timed(oldFile, 200);
      const warm: number[] = [];
      for (let i = 0; i < 50; i++) warm.push(await timed(oldFile, 200));
      const cached = median(warm);
      const after: number[] = [];
      const fakeTimes: number[] = [];
      let n = 0;
      for (let round = 0; round < ROUNDS; round++) {
        for (let i = 0; i < FAKES; i++) {
          const fake = `2020-01-01T00-00-00-000Z-${(n++).toString(16).padStart(6, '0')}`;
          fakeTimes.push(await timed(`${origin}${SEARCH_PATHS.base(name, fake)}pagefind-entry.json`, 404));
        }
        after.push(await timed(oldFile, 200));
      }
      const descriptor: number[] = [];
      for (let i = 0; i < 200; i++) descriptor.push(await timed(`${origin}${SEARCH_PATHS.descriptor(name)}`, 200));
      const ratio = median(after) / cached;
      console.log(`gateway: ${values.cli}`);
      console.log(`| figure | measured | target |`);
      console.log(`|---|---|---|`);
      console.log(`| older version's search file, cached (median of 50) | ${cached.toFixed(2)} ms | |`);
      console.log(`| the same after ${FAKES} made-up-version requests (median of ${ROUNDS} rounds; all: ${after.map((ms) => ms.toFixed(1)).join(', ')} ms) | ${median(after).toFixed(2)} ms = ${ratio.toFixed(2)}× | ≤ 2× |`);
      console.log(`| one made-up-version request (median of ${fakeTimes.length}) | ${median(fakeTimes).toFixed(2)} ms | ≤ a descriptor request |`);
      console.log(`| one search descriptor request (median of 200) | ${median(descriptor).toFixed(2)} ms | |`);
    } finally {
      gateway.kill('SIGTERM');
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
