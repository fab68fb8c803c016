/** Chrono Core from the cards seen in the Sleeved exports. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ChronoCoreCard } from '@snapdeck/contract';
import { CHRONO_CORE_SET_NAMES, chronoCoreImageUrl, inferChronoCoreCard } from '../generate-catalog.ts';
import { type Json, readJson, readArray, Reader, cleanText, numberAfterDash } from './common.ts';

/** Ids seen in the starting loadout of either Sleeved export. */
function chronoLoadoutIds(dir: string): Set<string> {
  const loadout = new Set<string>();
  const json = readJson(join(dir, 'decks', 'sleeved_json_export.json')) as { zones?: { loadout?: unknown } };
  if (!Array.isArray(json.zones?.loadout)) throw new Error('chrono-core: sleeved_json_export.json has no zones.loadout array');
  for (const id of json.zones.loadout) loadout.add(String(id));
  let section = '';
  for (const line of readFileSync(join(dir, 'decks', 'sleeved_text_export.txt'), 'utf8').split('\n')) {
    const header = /^\/\/\s*(.+?)\s*$/.exec(line);
    if (header) section = header[1] ?? '';
    const id = /\(([A-Z]+\d+-\d+)\)\s*$/.exec(line)?.[1];
    if (id && section === 'Starting Loadout') loadout.add(id);
  }
  return loadout;
}

export function importChronoCore(raw: string): ChronoCoreCard[] {
  const dir = join(raw, 'chrono-core');
  const file = readJson(join(dir, 'cards_from_sleeved_examples.json')) as Json;
  const named = readArray(join(dir, 'cards_from_sleeved_examples.json'), 'cards');
  // The exports also list `unnamed_ids`, cards seen only by id. They are left out rather than given
  // made-up names: a deck export prints their ids (the missing-card rule), which is what is known.
  if (!Array.isArray(file.unnamed_ids)) throw new Error('chrono-core: cards_from_sleeved_examples.json has no unnamed_ids array');
  const loadout = chronoLoadoutIds(dir);
  const sightings = named.map((record) => {
    const r = new Reader('chrono-core', record);
    const sections = r.strings('seen_in_sections');
    return { record, id: r.str('id'), name: cleanText(r.str('name')), loadout: sections.includes('Starting Loadout') || loadout.has(r.str('id')) };
  });
  return sightings
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ record, id, name, loadout: inLoadout }) => {
      const setId = id.split('-')[0] ?? '';
      const setName = CHRONO_CORE_SET_NAMES[setId] ?? new Reader('chrono-core', record).fail(`unknown set ${setId}`);
      return {
        id,
        objectID: id,
        cardNumber: id,
        name,
        ...inferChronoCoreCard(name, inLoadout),
        traits: [],
        cost: null,
        power: null,
        health: null,
        effect: '',
        rarity: null,
        setId,
        setName,
        setOrder: numberAfterDash(id),
        cardImageUrl: chronoCoreImageUrl(setId, id),
        hasAltArt: false,
        cardArts: [{ id, type: 'Standard', url: chronoCoreImageUrl(setId, id) }],
      };
    });
}

