/**
 * The importer against the real data in ../shared/data/raw (skipped when it is not checked out):
 * counts per game as SOURCES.md states them, every line valid, every card id used by the real
 * deck exports present in the imported catalog, and the generated Chrono Core catalog agreeing with
 * the real one on the ids the real exports use.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_MODELS, GAME_SLUGS, findGame, type GameSlug } from '@snapdeck/contract';
import { generateCatalog } from '../scripts/generate-catalog.ts';
import { ImportError, SKIPPED_RECORDS, importRealCatalog, realDataDir, type ImportSummary } from '../scripts/import-real.ts';

const raw = realDataDir();

/** Card counts from SOURCES.md (gundam: card numbers, printings folded into cardArts). */
/** Chrono Core: the 33 named cards; the 23 `unnamed_ids` are left out (no invented names). */
const EXPECTED_AT_LEAST: Record<GameSlug, number> = { digimon: 4300, gundam: 900, 'grand-archive': 1850, 'chrono-core': 33 };
const EXPECTED_AT_MOST: Record<GameSlug, number> = { digimon: 4500, gundam: 914, 'grand-archive': 1893, 'chrono-core': 33 };

/** Chrono Core ids the real data shows without a name (`unnamed_ids`): left out of the catalog. */
const unnamedChronoIds = (rawDir: string): ReadonlySet<string> =>
  new Set((readJson(join(rawDir, 'chrono-core', 'cards_from_sleeved_examples.json')) as { unnamed_ids: string[] }).unnamed_ids);

/**
 * Real deck-export ids that are genuinely absent from the real catalog. Digimon and Gundam: none.
 * Chrono Core: exactly the ids the real data gives no name.
 */
const knownMissing = (game: GameSlug, rawDir: string): ReadonlySet<string> => (game === 'chrono-core' ? unnamedChronoIds(rawDir) : new Set());

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

/** The first card id on each line of a text deck export (later tokens can be model numbers: "Zaku I | MS-05"). */
function idsFromText(file: string, game: GameSlug): string[] {
  const token = game === 'digimon' ? /\b[A-Z]+\d*-\d{2,3}\b/ : /\b[A-Z]+\d*-\d{3}\b/;
  const ids: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('//')) continue;
    const id = token.exec(line)?.[0];
    if (id && findGame(game)!.cardIdPattern.test(id)) ids.push(id);
  }
  return ids;
}

/** Card ids used by the real deck exports of a game, by export file. */
function deckIds(game: GameSlug, rawDir: string): Map<string, Set<string>> {
  const dir = join(rawDir, game, 'decks');
  const byFile = new Map<string, Set<string>>();
  const add = (file: string, ids: Iterable<string>) => byFile.set(file, new Set([...(byFile.get(file) ?? []), ...ids]));
  for (const file of readdirSync(dir)) {
    const path = join(dir, file);
    if (file.endsWith('.txt')) add(file, idsFromText(path, game));
  }
  if (game === 'digimon') {
    const sample = readJson(join(dir, 'tournament_decks_sample.json')) as { decks: Array<{ cards: Record<string, number> }> };
    add('tournament_decks_sample.json', sample.decks.flatMap((d) => Object.keys(d.cards)));
    const aggregates = readJson(join(dir, 'limitless_archetype_aggregates.json')) as Array<{ cards: Array<{ card_id: string }> }>;
    add('limitless_archetype_aggregates.json', aggregates.flatMap((d) => d.cards.map((c) => c.card_id)));
    // First element is a comment string ("Exported from …").
    const tts = readJson(join(dir, 'tts_export_digimoncarddev.json')) as string[];
    add('tts_export_digimoncarddev.json', tts.slice(1));
  }
  if (game === 'gundam') {
    const sample = readJson(join(dir, 'tournament_decks_sample.json')) as { decks: Array<{ entries: Array<{ cardId: string }> }> };
    add('tournament_decks_sample.json', sample.decks.flatMap((d) => d.entries.map((e) => e.cardId)));
  }
  if (game === 'chrono-core') {
    const json = readJson(join(dir, 'sleeved_json_export.json')) as { zones: Record<string, string[]> };
    add('sleeved_json_export.json', Object.values(json.zones).flat());
  }
  return byFile;
}

function readCatalog(file: string): Array<Record<string, unknown> & { id: string }> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown> & { id: string });
}

describe.skipIf(!raw)('real catalog import (../shared/data/raw)', () => {
  const rawDir = raw ?? '';
  let out = '';
  let summaries: ImportSummary[] = [];
  const catalogs = new Map<GameSlug, Array<Record<string, unknown> & { id: string }>>();

  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), 'snapdeck-real-'));
    summaries = importRealCatalog({ raw: rawDir, out });
    for (const game of GAME_SLUGS) catalogs.set(game, readCatalog(join(out, `${game}.jsonl`)));
  }, 60_000);

  afterAll(() => {
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it.each(GAME_SLUGS)('%s: card count matches SOURCES.md', (game) => {
    const summary = summaries.find((s) => s.game === game);
    expect(summary?.cards).toBe(catalogs.get(game)?.length);
    expect(summary!.cards).toBeGreaterThanOrEqual(EXPECTED_AT_LEAST[game]);
    expect(summary!.cards).toBeLessThanOrEqual(EXPECTED_AT_MOST[game]);
  });

  it.each(GAME_SLUGS)('%s: every line parses with the schema, ids are unique and well-formed, hits are valid', (game) => {
    const model = CARD_MODELS[game];
    const pattern = findGame(game)!.cardIdPattern;
    const ids = new Set<string>();
    for (const card of catalogs.get(game)!) {
      const parsed = model.card.safeParse(card);
      if (!parsed.success) throw new Error(`${game} ${card.id}: ${parsed.error.message}`);
      expect(pattern.test(card.id), card.id).toBe(true);
      expect(/^[A-Za-z0-9_-]{1,100}$/.test(card.id), card.id).toBe(true);
      expect(ids.has(card.id), `duplicate ${card.id}`).toBe(false);
      ids.add(card.id);
      expect(model.hit.safeParse(model.toHit(parsed.data)).success).toBe(true);
    }
  });

  it('digimon: merges TakaOtaku art and illustrators, and keeps the full digimoncard.io catalog', () => {
    const byId = new Map(catalogs.get('digimon')!.map((c) => [c.id, c]));
    expect(byId.size).toBe(4398);
    const analog = byId.get('EX1-066') as unknown as { illustrator: string; AAs: unknown[]; cardArts: Array<{ id: string }>; securityEffect: string };
    expect(analog.illustrator).toBe('Kenji Watanabe');
    expect(analog.AAs).toHaveLength(6);
    // EX1-066_P3 is listed twice in the source (two products, one art).
    expect(analog.cardArts.map((a) => a.id)).toEqual(['EX1-066', 'EX1-066_P1', 'EX1-066_P2', 'EX1-066_P3', 'EX1-066_P4', 'EX1-066_P5']);
    expect(analog.securityEffect).toBe('[Security] Play this card without paying the cost.');
    expect(byId.get('BT21-009')).toMatchObject({ hasLink: true, linkDp: 2000, linkCondition: '[Link] [Appmon] trait: Cost 1' });
    expect(byId.get('AD1-005')).toMatchObject({ aceEffect: expect.stringMatching(/^Overflow ＜-4＞/) });
    expect(byId.get('BT1-001')).toMatchObject({ cardType: 'Digi-Egg', effect: '', inheritedEffect: expect.stringMatching(/^\[When Attacking\]/), playCost: 0, level: 2 });
    // The set's own name, not the reprint product digimoncard.io names it after.
    expect(byId.get('BT1-010')).toMatchObject({ setName: 'BT-01: Booster New Evolution', productOrigin: '25th Special Memorial Pack' });
    expect(byId.has('P-226')).toBe(false);
    expect(Object.keys(SKIPPED_RECORDS.digimon)).toEqual(['P-226']);
  });

  it('gundam: one card per card number, other printings as cardArts', () => {
    const byId = new Map(catalogs.get('gundam')!.map((c) => [c.id, c as unknown as { cardArts: Array<{ id: string; type: string }>; hasAltArt: boolean }]));
    const printings = byId.get('GD01-001')!.cardArts;
    expect(printings[0]).toMatchObject({ id: 'GD01-001', type: 'Standard' });
    expect(printings.slice(1).every((p) => p.id.startsWith('GD01-001_p'))).toBe(true);
    const total = [...byId.values()].reduce((n, c) => n + c.cardArts.length, 0);
    expect(total).toBe(1529);
  });

  it('chrono-core: loadout cards are Core or Pilot, everything else is not', () => {
    const json = readJson(join(rawDir, 'chrono-core', 'decks', 'sleeved_json_export.json')) as { zones: Record<string, string[]> };
    const byId = new Map(catalogs.get('chrono-core')!.map((c) => [c.id, c as unknown as ChronoLike]));
    // The JSON export's loadout is all unnamed ids (left out); the text export names its loadout.
    const text = readFileSync(join(rawDir, 'chrono-core', 'decks', 'sleeved_text_export.txt'), 'utf8').split('// Main Deck')[0]!;
    const loadout = [...(json.zones.loadout ?? []), ...[...text.matchAll(/\(([A-Z]+\d+-\d+)\)$/gm)].map((m) => m[1]!)].filter((id) => byId.has(id));
    expect(loadout).toHaveLength(6);
    for (const id of loadout) expect(['Core', 'Pilot'], id).toContain(byId.get(id)?.cardType);
    for (const id of [...(json.zones.main ?? []), ...(json.zones.sideboard ?? [])]) expect(['Core', 'Pilot'], id).not.toContain(byId.get(id)?.cardType);
    expect(byId.get('WNR01-001')).toMatchObject({ name: 'Allura Nekris', cardType: 'Pilot' });
  });

  it('chrono-core: cards the real data gives no name are left out, not invented', () => {
    const unnamed = unnamedChronoIds(rawDir);
    expect(unnamed.size).toBe(23);
    const ids = new Set(catalogs.get('chrono-core')!.map((c) => c.id));
    for (const id of unnamed) expect(ids.has(id), id).toBe(false);
    for (const card of catalogs.get('chrono-core')!) expect(String(card.name)).not.toMatch(/unknown/i);
  });

  it.each(['digimon', 'gundam', 'chrono-core'] as const)('%s: every card id of the real deck exports is in the imported catalog', (game) => {
    const catalog = new Set(catalogs.get(game)!.map((c) => c.id));
    const missing: string[] = [];
    let checked = 0;
    for (const [file, ids] of deckIds(game, rawDir)) {
      for (const id of ids) {
        checked += 1;
        if (!catalog.has(id) && !knownMissing(game, rawDir).has(id)) missing.push(`${file}: ${id}`);
      }
    }
    expect(checked).toBeGreaterThan(game === 'chrono-core' ? 50 : 80);
    expect(missing).toEqual([]);
  });

  it('chrono-core: the generated default catalog has every real card, with the same name, type and slot, and leaves out the same unnamed ids', () => {
    const generated = new Map([...generateCatalog({ game: 'chrono-core' })].map((c) => [c.id, c as unknown as ChronoLike]));
    for (const real of catalogs.get('chrono-core')! as unknown as ChronoLike[]) {
      expect(generated.get(real.id), real.id).toMatchObject({ name: real.name, cardType: real.cardType, slot: real.slot });
    }
    const unnamed = unnamedChronoIds(rawDir);
    for (const [, ids] of deckIds('chrono-core', rawDir)) for (const id of ids) expect(generated.has(id), id).toBe(!unnamed.has(id));
  });

  it('fails loudly, naming the record and the reason, on a record that does not map', () => {
    const broken = mkdtempSync(join(tmpdir(), 'snapdeck-raw-'));
    try {
      const rows = readJson(join(rawDir, 'gundam', 'gcgapi_cards_cc0_2026-07-06.json')) as Array<Record<string, unknown>>;
      rows[3] = { ...rows[3], card_type: 'MOBILE ARMOR' };
      mkdirSync(join(broken, 'gundam'), { recursive: true });
      writeFileSync(join(broken, 'gundam', 'gcgapi_cards_cc0_2026-07-06.json'), JSON.stringify(rows));
      const run = () => importRealCatalog({ raw: broken, out: join(broken, 'out'), games: ['gundam'] });
      expect(run).toThrow(ImportError);
      expect(run).toThrow(/MOBILE ARMOR[\s\S]*reason: unknown card_type MOBILE ARMOR/);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});

interface ChronoLike {
  id: string;
  name: string;
  cardType: string;
  slot: string | null;
}
