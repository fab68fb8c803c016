/**
 * Every real deck list under `../shared/data/raw/<game>/decks/` that has a card list, parsed into
 * import entries (see that folder's SOURCES.md for each export's layout). Lists keep the order of
 * their file; a file with sections (`// Egg Deck`, `# Material`, `// Starting Loadout`) stores
 * each entry with its section's zone, one without stores no zone (the gateway resolves it).
 *
 * Grand Archive lists name their cards: names are mapped to catalog ids with `gaIdOf`; a name the
 * real catalog lacks (a known data gap) is stored under its slug, which no catalog card has.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GameSlug } from '@snapdeck/contract';
import type { DeckLine } from './decks.ts';

export type Entry = DeckLine['cards'][number];

export interface RealDeck {
  /** File (and deck within it) the list comes from. */
  source: string;
  gameId: GameSlug;
  cards: Entry[];
  /** Whether the file had sections (each entry then carries a zone). */
  zoned: boolean;
}

/** `# Main` / `# Main Deck` and the like, as Grand Archive lists write their sections. */
const GA_SECTIONS: Readonly<Record<string, string>> = { Main: 'main', 'Main Deck': 'main', Material: 'material', 'Material Deck': 'material', Sideboard: 'sideboard' };

export function gaSlug(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** Parses every row of `text` with `pattern` (groups: qty, id), skipping blank rows and `//` headers. */
function rows(text: string, pattern: RegExp, groups: { qty: number; id: number }, source: string): Entry[] {
  const entries: Entry[] = [];
  for (const row of text.split('\n')) {
    if (row.trim() === '' || row.startsWith('//')) continue;
    const match = pattern.exec(row);
    if (!match) throw new Error(`${source}: unexpected row ${JSON.stringify(row)}`);
    entries.push({ cardId: match[groups.id]!, quantity: Number(match[groups.qty]) });
  }
  return entries;
}

/** Quantities of a list of ids (one id per copy), in order of first appearance. */
function counted(ids: Iterable<string>): Entry[] {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].map(([cardId, quantity]) => ({ cardId, quantity }));
}

/** `// <section>` headers over `{qty} {name} {id}`-like rows; `zoneOf` names each section's zone. */
function sectioned(text: string, pattern: RegExp, zoneOf: (header: string) => string, source: string): Entry[] {
  const entries: Entry[] = [];
  let zone: string | undefined;
  for (const row of text.split('\n')) {
    if (row.trim() === '') continue;
    const header = /^\/\/ (.+?)\s*$/.exec(row);
    if (header) {
      zone = zoneOf(header[1]!);
      continue;
    }
    const match = pattern.exec(row);
    if (!match) throw new Error(`${source}: unexpected row ${JSON.stringify(row)}`);
    entries.push({ cardId: match[3]!, quantity: Number(match[1]), zoneId: zone ?? 'main' });
  }
  return entries;
}

/** Grand Archive `# Section` blocks of `{qty} {name}` rows. */
export function parseGaList(text: string, gaIdOf: (name: string) => string): Entry[] {
  const entries: Entry[] = [];
  let zone = 'main';
  for (const row of text.split('\n')) {
    if (row === '') continue;
    const header = /^# (.+)$/.exec(row);
    if (header) {
      zone = GA_SECTIONS[header[1]!]!;
      if (!zone) throw new Error(`unknown Grand Archive section ${row}`);
      continue;
    }
    const [, qty, name] = /^(\d+) (.+)$/.exec(row)!;
    entries.push({ cardId: gaIdOf(name!), quantity: Number(qty), zoneId: zone });
  }
  return entries;
}

/** The Sleeved text export: `// Starting Loadout`, `// Main Deck`, `// Sideboard` over `{qty} {name} ({id})`. */
export function parseSleeved(text: string): Entry[] {
  const zones: Record<string, string> = { 'Starting Loadout': 'loadout', 'Main Deck': 'main', Sideboard: 'sideboard' };
  return sectioned(text, /^(\d+) (.+) \(([^)]+)\)$/, (header) => zones[header]!, 'sleeved_text_export.txt');
}

export function realDecks(raw: string, gaIdOf: (name: string) => string): RealDeck[] {
  const read = (path: string) => readFileSync(join(raw, path), 'utf8');
  const json = (path: string): any => JSON.parse(read(path));
  const decks: RealDeck[] = [];
  const add = (source: string, gameId: GameSlug, cards: Entry[]) => decks.push({ source, gameId, cards, zoned: cards.some((c) => c.zoneId !== undefined) });

  // Digimon. Only the digimoncard.io exports have sections (`// Egg Deck` after the main deck).
  const dg = 'digimon/decks';
  add(`${dg}/digimoncardapp_export.txt`, 'digimon', rows(read(`${dg}/digimoncardapp_export.txt`), /^(\S+) (.+) (\d+)$/, { id: 1, qty: 3 }, 'digimoncardapp'));
  add(`${dg}/digimoncarddev_export.txt`, 'digimon', rows(read(`${dg}/digimoncarddev_export.txt`), /^(\d+) (.+?) +(\S+)$/, { qty: 1, id: 3 }, 'digimoncarddev'));
  for (const file of ['digimoncardio_export.txt', 'digimoncardio_export_calcifershearth.txt']) {
    add(`${dg}/${file}`, 'digimon', sectioned(read(`${dg}/${file}`), /^(\d+) (.+) (\S+)$/, (header) => (/Egg/.test(header) ? 'digi-egg' : 'main'), file));
  }
  add(`${dg}/digimonmeta_export.txt`, 'digimon', rows(read(`${dg}/digimonmeta_export.txt`), /^(\d+) \((\S+)\)$/, { qty: 1, id: 2 }, 'digimonmeta'));
  add(`${dg}/untap_export.txt`, 'digimon', rows(read(`${dg}/untap_export.txt`), /^(\d+) (.+?) +\(DCG\) \((\S+)\)$/, { qty: 1, id: 3 }, 'untap'));
  const tts = json(`${dg}/tts_export_digimoncarddev.json`) as string[];
  add(`${dg}/tts_export_digimoncarddev.json`, 'digimon', counted(tts.filter((item) => !item.startsWith('Exported from'))));
  for (const d of json(`${dg}/tournament_decks_sample.json`).decks as Array<{ id: number; deck_name: string; cards: Record<string, number> }>) {
    add(`${dg}/tournament_decks_sample.json #${d.id} ${d.deck_name}`, 'digimon', Object.entries(d.cards).map(([cardId, quantity]) => ({ cardId, quantity })));
  }
  for (const d of json(`${dg}/limitless_archetype_aggregates.json`) as Array<{ deck_id: string; cards: Array<{ card_id: string; copies: number }> }>) {
    add(`${dg}/limitless_archetype_aggregates.json ${d.deck_id}`, 'digimon', d.cards.map((c) => ({ cardId: c.card_id, quantity: c.copies })));
  }

  // Gundam: four one-deck exports (no sections) and the tournament sample.
  const gd = 'gundam/decks';
  add(`${gd}/limitless_export.txt`, 'gundam', rows(read(`${gd}/limitless_export.txt`), /^(\d+) (.+) (\S+)$/, { qty: 1, id: 3 }, 'limitless'));
  add(`${gd}/deckplanet_export.txt`, 'gundam', rows(read(`${gd}/deckplanet_export.txt`), /^(\d+) (.+) \[(\S+)\]$/, { qty: 1, id: 3 }, 'deckplanet'));
  add(`${gd}/egman_export.txt`, 'gundam', rows(read(`${gd}/egman_export.txt`), /^(\d+) (\S+) (.+)$/, { qty: 1, id: 2 }, 'egman'));
  add(`${gd}/exburst_export.txt`, 'gundam', rows(read(`${gd}/exburst_export.txt`), /^(\d+) x (\S+)$/, { qty: 1, id: 2 }, 'exburst'));
  for (const d of json(`${gd}/tournament_decks_sample.json`).decks as Array<{ id: string; entries: Array<{ cardId: string; qty: number }> }>) {
    add(`${gd}/tournament_decks_sample.json ${d.id}`, 'gundam', d.entries.map((e) => ({ cardId: e.cardId, quantity: e.qty })));
  }

  // Grand Archive: the Fan of Insight and Omnideck lists, and the official starter decks.
  const ga = 'grand-archive/decks';
  for (const file of ['fanofinsight_fire_guo_jia_impact_hammer.txt', 'fanofinsight_tera_silvie_baby_silver_slime.txt', 'fanofinsight_water_diao_chan.txt', 'fanofinsight_wind_arisanna_distilled_water.txt', 'omnideck_export_tristan.txt']) {
    add(`${ga}/${file}`, 'grand-archive', parseGaList(read(`${ga}/${file}`), gaIdOf));
  }
  for (const d of json(`${ga}/official_starter_decks_sample.json`).decks as Array<{ label: string; text: string }>) {
    add(`${ga}/official_starter_decks_sample.json ${d.label}`, 'grand-archive', parseGaList(d.text, gaIdOf));
  }

  // Chrono Core: the Sleeved text and JSON exports (both zoned).
  const cc = 'chrono-core/decks';
  add(`${cc}/sleeved_text_export.txt`, 'chrono-core', parseSleeved(read(`${cc}/sleeved_text_export.txt`)));
  const sleeved = json(`${cc}/sleeved_json_export.json`) as { zones: Record<string, string[]> };
  add(`${cc}/sleeved_json_export.json`, 'chrono-core', Object.entries(sleeved.zones).flatMap(([zoneId, ids]) => counted(ids).map((entry) => ({ ...entry, zoneId }))));
  return decks;
}
