/**
 * Imports the real card data under `<repo>/../shared/data/raw` (see its SOURCES.md) into the
 * catalog form: `<out>/<slug>.jsonl`, one full card per line, every card checked against its schema.
 *
 *   npx tsx scripts/import-real.ts [--raw DIR] [--out DIR] [--game SLUG]...
 *
 * --raw   the raw data folder (default <repo root>/../shared/data/raw)
 * --out   output folder (default data/real under the repository root; gitignored)
 *
 * Sources per game:
 * - digimon: digimoncardio_cards.json (the full catalog) merged, where ids overlap, with the
 *   TakaOtaku-format files (illustrators, alternative arts, LINK / ACE data, full digivolve
 *   conditions); TakaOtaku-only cards are added.
 * - gundam: gcgapi_cards_cc0 (CC0); one card per card number, other printings become cardArts.
 * - grand-archive: ga_cards_merged.json; editions become cardArts.
 * - chrono-core: cards_from_sleeved_examples.json plus the two Sleeved exports (for the sections
 *   unnamed ids were seen in).
 *
 * A record that does not map to a valid card stops the import with the record and the reason.
 * Each game's mapping lives in scripts/real/<game>.ts; this file drives them and writes the files.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CARD_MODELS, GAME_SLUGS, isGameSlug, type GameSlug } from '@snapdeck/contract';
import { REPO_ROOT, writeCatalogFile } from './generate-catalog.ts';
import { importChronoCore } from './real/chrono-core.ts';
import { ImportError } from './real/common.ts';
import { SKIPPED_RECORDS, importDigimon } from './real/digimon.ts';
import { importGrandArchive } from './real/grand-archive.ts';
import { importGundam } from './real/gundam.ts';

export { ImportError, SKIPPED_RECORDS };

export const DEFAULT_RAW_DIR = resolve(REPO_ROOT, '..', 'shared', 'data', 'raw');
export const DEFAULT_REAL_DIR = join(REPO_ROOT, 'data', 'real');

/** The raw data folder, or null when `../shared` is not checked out next to the repository. */
export function realDataDir(): string | null {
  return existsSync(join(DEFAULT_RAW_DIR, 'SOURCES.md')) ? DEFAULT_RAW_DIR : null;
}

// ---------------------------------------------------------------------------------------------
// Import
// ---------------------------------------------------------------------------------------------

const IMPORTERS: Record<GameSlug, (raw: string) => Array<{ id: string }>> = {
  digimon: importDigimon,
  gundam: importGundam,
  'grand-archive': importGrandArchive,
  'chrono-core': importChronoCore,
};

/** Maps one game's raw data to cards, each checked against the schema (throws ImportError). */
export function importGame(game: GameSlug, raw: string): Array<{ id: string }> {
  const cards = IMPORTERS[game](raw);
  const model = CARD_MODELS[game];
  const seen = new Set<string>();
  for (const card of cards) {
    const parsed = model.card.safeParse(card);
    if (!parsed.success) {
      throw new ImportError(game, card, parsed.error.issues.map((i) => `${i.path.join('.') || '(card)'}: ${i.message}`).join('; '));
    }
    if (seen.has(card.id)) throw new ImportError(game, card, `duplicate card id ${card.id}`);
    seen.add(card.id);
  }
  return cards;
}

export interface ImportSummary {
  game: GameSlug;
  cards: number;
  withAltArt: number;
  file: string;
  bytes: number;
}

export interface ImportOptions {
  raw?: string;
  out?: string;
  games?: readonly GameSlug[];
}

/** Imports every game (or `games`) from `raw` into `<out>/<slug>.jsonl`. */
export function importRealCatalog({ raw = DEFAULT_RAW_DIR, out = DEFAULT_REAL_DIR, games = GAME_SLUGS }: ImportOptions = {}): ImportSummary[] {
  if (!existsSync(raw)) throw new Error(`raw data folder not found: ${raw}`);
  return games.map((game) => {
    const result = writeCatalogFile(join(out, `${game}.jsonl`), game, importGame(game, raw));
    return { game, cards: result.cards, withAltArt: result.withAltArt, file: result.file, bytes: result.bytes };
  });
}

function main(argv: readonly string[]): void {
  let raw = DEFAULT_RAW_DIR;
  let out = DEFAULT_REAL_DIR;
  const games: GameSlug[] = [];
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value\nusage: npx tsx scripts/import-real.ts [--raw DIR] [--out DIR] [--game SLUG]...`);
    if (flag === '--raw') raw = resolve(value);
    else if (flag === '--out') out = resolve(value);
    else if (flag === '--game') {
      if (!isGameSlug(value)) throw new Error(`--game must be one of ${GAME_SLUGS.join(', ')}, got ${value}`);
      games.push(value);
    } else throw new Error(`unknown option ${flag}`);
  }
  for (const s of importRealCatalog({ raw, out, games: games.length ? games : GAME_SLUGS })) {
    const skipped = Object.entries(SKIPPED_RECORDS[s.game]).map(([id, reason]) => `; skipped ${id}: ${reason}`).join('');
    console.log(`${s.game}: ${s.cards} cards (${s.withAltArt} with alt arts) -> ${relative(process.cwd(), s.file) || s.file} (${(s.bytes / 1e6).toFixed(1)} MB)${skipped}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`import-real: ${(error as Error).message}`);
    process.exit(1);
  }
}
