/**
 * Seeded, deterministic card-catalog generator: writes `<out>/<slug>.jsonl` (one full card per
 * line, each validated against its game's schema first) shaped and sized like the real games.
 *
 *   npx tsx scripts/generate-catalog.ts [--out DIR] [--seed N] [--game SLUG]... [--scale-digimon F] [--count N]
 *
 * --out            output folder (default data/catalog under the repository root)
 * --seed           integer seed (default 7); the same seed always gives the same bytes
 * --game           only this game (repeatable; default all four)
 * --scale-digimon  multiply the digimon catalog size by F (e.g. 23 ≈ 100,000 cards)
 * --count          exact number of cards for every selected game (use with --game)
 *
 * Library use (benchmarks): `writeCatalogFile(file, game, generateCatalog({game, count, seed}))`
 * streams: cards are produced lazily and written in ~1 MB batches, so memory stays flat.
 *
 * Card N of a game is drawn from its own PRNG stream (seed, game, N), so cards do not depend on
 * how many cards are generated, and a larger catalog starts with the same cards as a smaller one.
 * Each game's sets, names and effects live in scripts/catalog/<game>.ts.
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CARD_MODELS, GAME_SLUGS, isGameSlug, type ChronoCoreCard, type DigimonCard, type GameSlug, type GrandArchiveCard, type GundamCard } from '@snapdeck/contract';
import { chronoCore } from './catalog/chrono-core.ts';
import { cardNumber, type GameGenerator } from './catalog/common.ts';
import { digimon } from './catalog/digimon.ts';
import { grandArchive } from './catalog/grand-archive.ts';
import { gundam } from './catalog/gundam.ts';
import { Rng, mixSeed } from './lib/prng.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_CATALOG_DIR = join(REPO_ROOT, 'data', 'catalog');
export const DEFAULT_SEED = 7;

export { CHRONO_CORE_SET_NAMES, chronoCoreImageUrl, inferChronoCoreCard } from './catalog/chrono-core.ts';
export { digimonImageUrl, digimonSourceImageUrl } from './catalog/digimon.ts';

type AnyCard = DigimonCard | GundamCard | GrandArchiveCard | ChronoCoreCard;

const GENERATORS: Record<GameSlug, GameGenerator<AnyCard>> = { digimon, gundam, 'grand-archive': grandArchive, 'chrono-core': chronoCore };

// ---------------------------------------------------------------------------------------------
// Catalog generation and writing
// ---------------------------------------------------------------------------------------------

/** Cards of the default catalog of each game (the real games' size). */
export function defaultCount(game: GameSlug): number {
  const generator = GENERATORS[game];
  let total = 0;
  for (const set of generator.plan) total += set.size;
  return total - (generator.absent?.size ?? 0);
}

export interface GenerateOptions {
  game: GameSlug;
  /** Number of cards (default: the real game's size, see defaultCount). */
  count?: number;
  seed?: number;
}

/** Lazily yields `count` valid cards of one game; iterate it once (it is a generator). */
export function* generateCatalog({ game, count = defaultCount(game), seed = DEFAULT_SEED }: GenerateOptions): Generator<AnyCard> {
  const gameIndex = GAME_SLUGS.indexOf(game);
  const generator = GENERATORS[game] as GameGenerator<AnyCard>;
  const card = generator.cards();
  let produced = 0;
  // Each card's randomness follows its position, so leaving a card number out changes no other card.
  let position = 0;
  for (const set of generator.sets()) {
    for (let n = 1; n <= set.size; n += 1) {
      if (produced >= count) return;
      const rng = new Rng(mixSeed(seed, gameIndex, position));
      position += 1;
      if (generator.absent?.has(cardNumber(set, n))) continue;
      produced += 1;
      yield card(rng, set, n);
    }
  }
  if (produced < count) throw new Error(`${game}: cannot generate ${count} cards, card ids run out after ${produced}`);
}

export interface WriteResult {
  file: string;
  cards: number;
  bytes: number;
  withAltArt: number;
}

const BATCH_BYTES = 1 << 20;

/**
 * Validates every card against the game's schema and writes them as JSON Lines. The file appears
 * only when complete (written beside it, then renamed), so a reader never sees half a catalog.
 * Throws on the first invalid or duplicate card, naming it and the reason.
 */
export function writeCatalogFile(file: string, game: GameSlug, cards: Iterable<unknown>): WriteResult {
  const model = CARD_MODELS[game];
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial-${process.pid}`;
  const fd = openSync(partial, 'w');
  const seen = new Set<string>();
  let batch: string[] = [];
  let batchBytes = 0;
  let count = 0;
  let bytes = 0;
  let withAltArt = 0;
  const flush = () => {
    if (batch.length === 0) return;
    const text = batch.join('');
    writeSync(fd, text);
    bytes += Buffer.byteLength(text);
    batch = [];
    batchBytes = 0;
  };
  try {
    for (const card of cards) {
      const parsed = model.card.safeParse(card);
      const id = (card as { id?: unknown }).id;
      if (!parsed.success) {
        const reasons = parsed.error.issues.map((i) => `${i.path.join('.') || '(card)'}: ${i.message}`).join('; ');
        throw new Error(`${game} card #${count + 1} (${String(id)}) does not match the schema: ${reasons}`);
      }
      if (seen.has(parsed.data.id)) throw new Error(`${game} card #${count + 1}: duplicate id ${parsed.data.id}`);
      seen.add(parsed.data.id);
      if ((card as { hasAltArt?: unknown }).hasAltArt === true) withAltArt += 1;
      const line = `${JSON.stringify(card)}\n`;
      batch.push(line);
      batchBytes += line.length;
      count += 1;
      if (batchBytes >= BATCH_BYTES) flush();
    }
    flush();
    closeSync(fd);
    renameSync(partial, file);
  } catch (error) {
    closeSync(fd);
    rmSync(partial, { force: true });
    throw error;
  }
  return { file, cards: count, bytes, withAltArt };
}

/** Writes the default catalog of every game (what `npm run generate` writes) into `dir`. */
export function writeDefaultCatalog(dir: string = DEFAULT_CATALOG_DIR, seed: number = DEFAULT_SEED): WriteResult[] {
  return GAME_SLUGS.map((game) => writeCatalogFile(join(dir, `${game}.jsonl`), game, generateCatalog({ game, seed })));
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

interface CliOptions {
  out: string;
  seed: number;
  games: GameSlug[];
  scaleDigimon: number;
  count: number | undefined;
}

const USAGE = 'usage: npx tsx scripts/generate-catalog.ts [--out DIR] [--seed N] [--game SLUG]... [--scale-digimon F] [--count N]';

function parseArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = { out: DEFAULT_CATALOG_DIR, seed: DEFAULT_SEED, games: [], scaleDigimon: 1, count: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    i += 1;
    const number = Number(value);
    switch (flag) {
      case '--out': options.out = resolve(value); break;
      case '--seed':
        if (!Number.isSafeInteger(number)) throw new Error(`--seed must be an integer, got ${value}`);
        options.seed = number;
        break;
      case '--game':
        if (!isGameSlug(value)) throw new Error(`--game must be one of ${GAME_SLUGS.join(', ')}, got ${value}`);
        options.games.push(value);
        break;
      case '--scale-digimon':
        if (!(number > 0)) throw new Error(`--scale-digimon must be a positive number, got ${value}`);
        options.scaleDigimon = number;
        break;
      case '--count':
        if (!Number.isSafeInteger(number) || number < 0) throw new Error(`--count must be a non-negative integer, got ${value}`);
        options.count = number;
        break;
      default: throw new Error(`unknown option ${flag}\n${USAGE}`);
    }
  }
  if (options.games.length === 0) options.games = [...GAME_SLUGS];
  return options;
}

function main(argv: readonly string[]): void {
  const options = parseArgs(argv);
  for (const game of options.games) {
    const started = performance.now();
    const count = options.count ?? (game === 'digimon' ? Math.round(defaultCount(game) * options.scaleDigimon) : defaultCount(game));
    const result = writeCatalogFile(join(options.out, `${game}.jsonl`), game, generateCatalog({ game, count, seed: options.seed }));
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const mb = (result.bytes / 1e6).toFixed(1);
    console.log(`${game}: ${result.cards} cards (${result.withAltArt} with alt arts) -> ${relative(process.cwd(), result.file) || result.file} (${mb} MB) in ${seconds}s, seed ${options.seed}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`generate-catalog: ${(error as Error).message}`);
    process.exit(1);
  }
}
