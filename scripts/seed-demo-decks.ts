/**
 * Demo decks: a few hundred realistic decks across the four games, built from the cards of the
 * default catalog (`<catalogDir>/<slug>.jsonl`), deterministic (seeded) and idempotent: the decks
 * have fixed ids, so seeding again upserts the same decks instead of adding more.
 *
 *   npx tsx scripts/seed-demo-decks.ts [--db FILE] [--catalog DIR]
 *
 * Zones are what real decks use: digimon digi-egg + main, gundam main + resource, grand-archive
 * material + main + sideboard, chrono-core loadout + main + sideboard. Some chrono-core decks
 * store no zones at all, so the catalog-based zone resolution shows in the API. About 10% of the
 * decks are private; a few of those get a share token and a pd_ private link, returned so that
 * the caller can print curl lines (demoCurlLines). Those tokens are re-issued on every run (the
 * previous ones of the example decks are revoked: only their hashes are stored, so they cannot be
 * printed again).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GAME_SLUGS, OPERATOR_DEFAULTS, ZONE, type GameSlug } from '@snapdeck/contract';
import { DeckStore, importDecks, openDatabase, resolveZoneId, type Db, type ImportResult } from '@snapdeck/store';
import { generateDecks, type GameTemplate, type GeneratedDeck } from './lib/deck-generator.ts';

export const DEMO_SEED = 20_261_122;
export const DEMO_DECK_COUNT = 400;
const EXAMPLE_COUNT = 2;

export interface DemoExample {
  deckId: string;
  gameId: GameSlug;
  name: string;
  shareToken: string;
  privateLink: string;
}

export interface SeededDemo {
  result: ImportResult;
  decks: number;
  privateDecks: number;
  /** One public deck per game, for curl lines. */
  publicDecks: { deckId: string; gameId: GameSlug }[];
  /** Private decks with a fresh share token and pd_ link. */
  examples: DemoExample[];
}

interface CatalogCard {
  id: string;
  cardType?: unknown;
  deckZone?: unknown;
}

function readCatalog(catalogDir: string, game: GameSlug): CatalogCard[] {
  const file = join(catalogDir, `${game}.jsonl`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`${file} is missing: generate the default catalog first (npx tsx scripts/generate-catalog.ts)`);
  }
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as CatalogCard);
}

const idsWhere = (cards: CatalogCard[], keep: (card: CatalogCard) => boolean) => cards.filter(keep).map((card) => card.id);

/** The zone the game gives a card stored without one (its catalog rule: Digi-Egg, Core, Pilot…). */
const zoneByType = (game: GameSlug, card: CatalogCard) => resolveZoneId(game, null, typeof card.cardType === 'string' ? card.cardType : null);

/** Deck templates from the catalog: which cards may go in which zone, and how many. */
export function demoTemplates(catalogDir: string): GameTemplate[] {
  const cards = Object.fromEntries(GAME_SLUGS.map((game) => [game, readCatalog(catalogDir, game)])) as Record<GameSlug, CatalogCard[]>;

  const digimonEggs = idsWhere(cards.digimon, (c) => zoneByType('digimon', c) === ZONE.digiEgg);
  const digimonMain = idsWhere(cards.digimon, (c) => zoneByType('digimon', c) === ZONE.main);
  const gundamResources = idsWhere(cards.gundam, (c) => c.cardType === 'Resource');
  const gundamMain = idsWhere(cards.gundam, (c) => ['Unit', 'Pilot', 'Command', 'Base'].includes(String(c.cardType)));
  const gaMaterial = idsWhere(cards['grand-archive'], (c) => c.deckZone === ZONE.material);
  const gaMain = idsWhere(cards['grand-archive'], (c) => c.deckZone === ZONE.main);
  const ccLoadout = idsWhere(cards['chrono-core'], (c) => zoneByType('chrono-core', c) === ZONE.loadout);
  const ccMain = idsWhere(cards['chrono-core'], (c) => zoneByType('chrono-core', c) === ZONE.main);

  for (const [label, pool] of Object.entries({ digimonEggs, digimonMain, gundamResources, gundamMain, gaMaterial, gaMain, ccLoadout, ccMain })) {
    if (pool.length === 0) throw new Error(`the catalog in ${catalogDir} has no cards for ${label}`);
  }

  return [
    {
      gameId: 'digimon',
      weight: 2,
      zones: [
        { zoneId: ZONE.digiEgg, cards: digimonEggs, entries: [1, 3], quantity: [1, 4] },
        { zoneId: ZONE.main, cards: digimonMain, entries: [13, 18], quantity: [2, 4] },
      ],
    },
    {
      gameId: 'gundam',
      weight: 2,
      zones: [
        { zoneId: ZONE.main, cards: gundamMain, entries: [13, 17], quantity: [2, 4] },
        { zoneId: ZONE.resource, cards: gundamResources, entries: [1, 1], quantity: [10, 10] },
      ],
    },
    {
      gameId: 'grand-archive',
      weight: 2,
      zones: [
        { zoneId: ZONE.material, cards: gaMaterial, entries: [10, 12], quantity: [1, 1] },
        { zoneId: ZONE.main, cards: gaMain, entries: [15, 19], quantity: [2, 4] },
        { zoneId: ZONE.sideboard, cards: gaMain, entries: [0, 7], quantity: [1, 3] },
      ],
    },
    {
      gameId: 'chrono-core',
      zones: [
        { zoneId: ZONE.loadout, cards: ccLoadout, entries: [5, 7], quantity: [1, 1] },
        { zoneId: ZONE.main, cards: ccMain, entries: [18, 24], quantity: [1, 3] },
        { zoneId: ZONE.sideboard, cards: ccMain, entries: [4, 6], quantity: [1, 2] },
      ],
    },
    {
      // Exported by a tool that knows no zones: every entry is stored without one, and the
      // gateway resolves loadout / main from each card's type.
      gameId: 'chrono-core',
      zones: [
        { zoneId: null, cards: ccLoadout, entries: [5, 7], quantity: [1, 1] },
        { zoneId: null, cards: ccMain, entries: [18, 24], quantity: [1, 3] },
      ],
    },
  ];
}

/** Generates and imports the demo decks, then issues tokens for a few private ones. */
export async function seedDemoDecks(options: { db: Db; catalogDir: string; count?: number }): Promise<SeededDemo> {
  const decks: GeneratedDeck[] = [
    ...generateDecks({
      seed: DEMO_SEED,
      count: options.count ?? DEMO_DECK_COUNT,
      templates: demoTemplates(options.catalogDir),
      privateShare: 0.1,
      from: Date.UTC(2025, 0, 1),
      to: Date.UTC(2026, 0, 1),
    }),
  ];
  const result = await importDecks(
    options.db,
    decks.map((deck) => JSON.stringify(deck)),
  );

  const store = new DeckStore(options.db);
  const examples: DemoExample[] = decks
    .filter((deck) => deck.visibility === 'private')
    .slice(0, EXAMPLE_COUNT)
    .map((deck) => {
      store.revokeTokens(deck.id);
      return {
        deckId: deck.id,
        gameId: deck.gameId,
        name: deck.name,
        shareToken: store.createShareToken(deck.id)!,
        privateLink: store.createPrivateLink(deck.id)!,
      };
    });
  const publicDecks = GAME_SLUGS.flatMap((game) => {
    const deck = decks.find((d) => d.gameId === game && d.visibility === 'public');
    return deck ? [{ deckId: deck.id, gameId: game }] : [];
  });
  return {
    result,
    decks: decks.length,
    privateDecks: decks.filter((deck) => deck.visibility === 'private').length,
    publicDecks,
    examples,
  };
}

/** curl lines for the demo, with `{base}` and `{key}` placeholders (scripts/start.ts fills them in). */
export function demoCurlLines(seeded: SeededDemo): string[] {
  const lines = [
    `curl -s -H 'X-API-Key: {key}' '{base}/decks/public?gameId=digimon&limit=3'`,
    `curl -s -H 'X-API-Key: {key}' '{base}/decks/changes?gameId=digimon'   # the deck change feed's cursor of now`,
  ];
  const ids = seeded.publicDecks.map((deck) => deck.deckId);
  if (ids.length > 0) {
    lines.push(`curl -s -X POST -H 'X-API-Key: {key}' -H 'Content-Type: application/json' -d '{"ids": ${JSON.stringify(ids.slice(0, 2))}}' '{base}/decks/details'`);
  }
  for (const deck of seeded.publicDecks) {
    lines.push(`curl -s '{base}/decks/${deck.deckId}?format=text'   # ${deck.gameId}`);
    if (deck.gameId === 'grand-archive') lines.push(`curl -s '{base}/decks/${deck.deckId}?format=ga-tts'`);
    if (deck.gameId === 'gundam') lines.push(`curl -s -H 'X-API-Key: {key}' '{base}/decks/${deck.deckId}/text?format=limitless'`);
  }
  for (const example of seeded.examples) {
    lines.push(`curl -s '{base}/decks/${example.deckId}?token=${example.shareToken}'   # private ${example.gameId} deck, share token (24 h)`);
    lines.push(`curl -s '{base}/decks/${example.deckId}?token=${example.privateLink}'   # same deck, pd_ private link`);
  }
  return lines;
}

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = resolve(import.meta.dirname, '..');
  const dbFile = argument('--db') ?? join(root, OPERATOR_DEFAULTS.db);
  const catalogDir = argument('--catalog') ?? join(root, 'data', 'catalog');
  const db = openDatabase(dbFile);
  try {
    const seeded = await seedDemoDecks({ db, catalogDir });
    console.log(`${seeded.decks} demo decks (${seeded.privateDecks} private) upserted into ${dbFile}`);
    for (const line of demoCurlLines(seeded)) console.log(`  ${line.replaceAll('{base}', `http://${OPERATOR_DEFAULTS.host}:${OPERATOR_DEFAULTS.port}/v1`).replaceAll('{key}', '$SNAPDECK_KEY')}`);
  } finally {
    db.close();
  }
}
