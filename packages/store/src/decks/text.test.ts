import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gaTtsResponse, type CardEntry } from '@snapdeck/contract';
import { describe, expect, it } from 'vitest';
import type { CardInfo } from './card-lookup.ts';
import { gaTts } from './ga-tts.ts';
import { ResolvedDeckCache } from './resolved-cache.ts';
import { deckText, limitlessText, snapdeckText, zoneGroups, type TextDeck } from './text.ts';
import { storedDeck } from '../../../../test/helpers/deck-db.ts';

const entry = (cardId: string, quantity: number, zoneId = 'main'): CardEntry => ({ cardId, quantity, zoneId });
const names = new Map([
  ['BT1-001', 'Koromon'],
  ['BT1-010', 'Agumon'],
  ['BT1-084', 'Tai Kamiya'],
]);

describe('layouts', () => {
  const digimon: TextDeck = {
    gameId: 'digimon',
    cards: [entry('BT1-010', 4), entry('BT1-001', 4, 'digi-egg'), entry('BT1-084', 2), entry('BT9-999', 1, 'side-deck'), entry('BT1-001', 1, 'sideboard')],
  };

  it('format=text: zone groups in order, headers, import order within a group, unknown cards by id', () => {
    expect(deckText(digimon, names)).toBe(
      [
        '// Digi-Egg Deck',
        '4 Koromon (BT1-001)',
        '// Main Deck',
        '4 Agumon (BT1-010)',
        '2 Tai Kamiya (BT1-084)',
        '// Sideboard',
        '1 Koromon (BT1-001)',
        '// Side-Deck',
        '1 BT9-999 (BT9-999)',
        '',
      ].join('\n'),
    );
  });

  it('format=text: no headers when the deck has a single zone; nothing for an empty deck', () => {
    expect(deckText({ gameId: 'gundam', cards: [entry('GD01-039', 4, 'resource'), entry('GD01-021', 1, 'resource')] }, new Map([['GD01-039', 'Dopp']]))).toBe(
      '4 Dopp (GD01-039)\n1 GD01-021 (GD01-021)\n',
    );
    expect(deckText({ gameId: 'digimon', cards: [] }, names)).toBe('');
  });

  it('resource and loadout lead, then main, then sideboard (grand-archive: main, material, sideboard), then other zones by first appearance', () => {
    const order = (gameId: TextDeck['gameId'], zones: string[]) => zoneGroups({ gameId, cards: zones.map((z, i) => entry(`X-${i}`, 1, z)) }).map((g) => g.zoneId);
    expect(order('gundam', ['b-zone', 'main', 'a-zone', 'resource', 'b-zone'])).toEqual(['resource', 'main', 'b-zone', 'a-zone']);
    expect(order('chrono-core', ['sideboard', 'main', 'loadout'])).toEqual(['loadout', 'main', 'sideboard']);
    expect(order('grand-archive', ['references', 'sideboard', 'main', 'material'])).toEqual(['main', 'material', 'sideboard', 'references']);
  });

  it('snapdeck: {qty} {name} ({GAME}) ({CARD-ID}), no headers, zones in text order', () => {
    expect(snapdeckText(digimon, names)).toBe(
      ['4 Koromon (DCG) (BT1-001)', '4 Agumon (DCG) (BT1-010)', '2 Tai Kamiya (DCG) (BT1-084)', '1 Koromon (DCG) (BT1-001)', '1 BT9-999 (DCG) (BT9-999)', ''].join('\n'),
    );
    expect(snapdeckText({ gameId: 'chrono-core', cards: [entry('WNR01-001', 1, 'loadout')] }, new Map())).toBe('1 WNR01-001 (CC) (WNR01-001)\n');
    expect(snapdeckText({ gameId: 'gundam', cards: [entry('GD01-001', 1)] }, new Map())).toBe('1 GD01-001 (GUN) (GD01-001)\n');
    expect(snapdeckText({ gameId: 'grand-archive', cards: [entry('lorraine', 1)] }, new Map())).toBe('1 lorraine (GA) (lorraine)\n');
  });

  it('limitless: {qty} {name} {cardId}, no headers, zones in text order', () => {
    expect(limitlessText(digimon, names)).toBe(['4 Koromon BT1-001', '4 Agumon BT1-010', '2 Tai Kamiya BT1-084', '1 Koromon BT1-001', '1 BT9-999 BT9-999', ''].join('\n'));
  });

  it('grand-archive text: main, material, then sideboard; empty sections and references left out', () => {
    const ga = (cards: CardEntry[]) => deckText({ gameId: 'grand-archive', cards }, new Map([['lorraine', 'Lorraine, Wandering Warrior']]));
    expect(ga([entry('lorraine', 1, 'material'), entry('sword', 4), entry('ref', 1, 'references')])).toBe(
      '# Main Deck\n4 sword\n\n# Material Deck\n1 Lorraine, Wandering Warrior\n',
    );
    expect(ga([entry('spare', 2, 'sideboard'), entry('sword', 4), entry('odd', 1, 'tokens')])).toBe('# Main Deck\n4 sword\n\n# Sideboard\n2 spare\n\n# Tokens\n1 odd\n');
    expect(ga([entry('lorraine', 1, 'material')])).toBe('# Material Deck\n1 Lorraine, Wandering Warrior\n');
    expect(ga([entry('ref', 1, 'references')])).toBe('');
  });

  it('grand-archive limitless and snapdeck exports list zones in the same order as format=text', () => {
    const cards = [entry('lorraine', 1, 'material'), entry('spare', 2, 'sideboard'), entry('sword', 4)];
    expect(limitlessText({ gameId: 'grand-archive', cards }, new Map())).toBe('4 sword sword\n1 lorraine lorraine\n2 spare spare\n');
    expect(snapdeckText({ gameId: 'grand-archive', cards }, new Map())).toBe('4 sword (GA) (sword)\n1 lorraine (GA) (lorraine)\n2 spare (GA) (spare)\n');
  });
});

describe('ga-tts', () => {
  it('groups entries by zone with names, images and the full card; unknown cards have nulls', () => {
    const card = { id: 'lorraine', name: 'Lorraine', cardImageUrl: 'https://img/lorraine.jpg' };
    const infos = new Map<string, CardInfo | null>([
      ['lorraine', { name: 'Lorraine', imageUrl: 'https://img/lorraine.jpg', cardType: null, card }],
      ['ghost', null],
    ]);
    const deck = { id: '3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b', name: 'Lorraine', cards: [entry('ghost', 4), entry('lorraine', 1, 'material'), entry('ghost', 1, 'sideboard')] };
    const data = gaTts(deck, infos);
    expect(data).toEqual({
      id: deck.id,
      name: 'Lorraine',
      zones: {
        main: [{ cardId: 'ghost', quantity: 4, name: 'ghost', imageUrl: null, card: null }],
        material: [{ cardId: 'lorraine', quantity: 1, name: 'Lorraine', imageUrl: 'https://img/lorraine.jpg', card }],
        references: [],
        sideboard: [{ cardId: 'ghost', quantity: 1, name: 'ghost', imageUrl: null, card: null }],
      },
    });
    expect(() => gaTtsResponse.parse({ data })).not.toThrow();
    expect(Object.keys(gaTts({ ...deck, cards: [] }, infos).zones)).toEqual(['main', 'material', 'references', 'sideboard']);
  });
});

/** The raw deck exports beside this repository (see its SOURCES.md); absent in a bare clone. */
const RAW = resolve(import.meta.dirname, '../../../../../shared/data/raw');
const raw = (path: string) => readFileSync(join(RAW, path), 'utf8');

describe.skipIf(!existsSync(RAW))('real exports', () => {
  const SLEEVED_ZONES: Record<string, string> = { 'Starting Loadout': 'loadout', 'Main Deck': 'main', Sideboard: 'sideboard' };

  /** Reads the Sleeved text layout back into a deck and a name map. */
  function parseSleeved(text: string): { cards: CardEntry[]; names: Map<string, string> } {
    const cards: CardEntry[] = [];
    const cardNames = new Map<string, string>();
    let zone = 'main';
    for (const row of text.split('\n').filter(Boolean)) {
      const header = /^\/\/ (.+)$/.exec(row);
      if (header) {
        zone = SLEEVED_ZONES[header[1]!]!;
        continue;
      }
      const [, qty, name, id] = /^(\d+) (.+) \(([^)]+)\)$/.exec(row)!;
      cards.push(entry(id!, Number(qty), zone));
      cardNames.set(id!, name!);
    }
    return { cards, names: cardNames };
  }

  it('chrono-core format=text reproduces the Sleeved export byte for byte', () => {
    const file = raw('chrono-core/decks/sleeved_text_export.txt');
    const { cards, names: cardNames } = parseSleeved(file);
    expect(cards.length).toBeGreaterThan(30);
    expect(deckText({ gameId: 'chrono-core', cards }, cardNames)).toBe(file);
  });

  it('chrono-core: the same deck stored without loadout/main zones resolves to the same export', async () => {
    const file = raw('chrono-core/decks/sleeved_text_export.txt');
    const { cards, names: cardNames } = parseSleeved(file);
    const loadout = new Set(cards.filter((c) => c.zoneId === 'loadout').map((c) => c.cardId));
    // A chrono-core deck whose main and loadout entries lost their zone; the sideboard kept its own.
    const stored = storedDeck({ cards: cards.map((c) => ({ ...c, zoneId: c.zoneId === 'sideboard' ? 'sideboard' : null })) });
    const resolved = await new ResolvedDeckCache().resolve(stored, async (id) => ({
      name: cardNames.get(id) ?? id,
      imageUrl: null,
      cardType: loadout.has(id) ? (id === 'WNR01-001' ? 'Pilot' : 'Core') : 'Upgrade',
      card: { id },
    }));
    expect(deckText({ gameId: 'chrono-core', cards: resolved }, cardNames)).toBe(file);
  });

  it('gundam limitless reproduces the Limitless export byte for byte', () => {
    const file = raw('gundam/decks/limitless_export.txt');
    const cards: CardEntry[] = [];
    const cardNames = new Map<string, string>();
    for (const row of file.split('\n').filter(Boolean)) {
      const [, qty, name, id] = /^(\d+) (.+) (\S+)$/.exec(row)!;
      cards.push(entry(id!, Number(qty)));
      cardNames.set(id!, name!);
    }
    expect(limitlessText({ gameId: 'gundam', cards }, cardNames)).toBe(file);
    // And format=text of that single-zone deck is the same list with ids in brackets, no header.
    expect(deckText({ gameId: 'gundam', cards }, cardNames)).toBe(file.replace(/ (\S+)$/gm, ' ($1)'));
  });

  it('digimon limitless matches the digimoncard.io export, eggs first and without its headers', () => {
    const file = raw('digimon/decks/digimoncardio_export.txt');
    const sections = new Map<string, string[]>();
    let zone = 'main';
    const cards: CardEntry[] = [];
    const cardNames = new Map<string, string>();
    for (const row of file.split('\n').filter(Boolean)) {
      if (row.startsWith('//')) {
        zone = /Egg/.test(row) ? 'digi-egg' : 'main';
        continue;
      }
      const [, qty, name, id] = /^(\d+) (.+) (\S+)$/.exec(row)!;
      cards.push(entry(id!, Number(qty), zone));
      cardNames.set(id!, name!);
      sections.set(zone, [...(sections.get(zone) ?? []), row]);
    }
    const expected = [...sections.get('digi-egg')!, ...sections.get('main')!].join('\n') + '\n';
    expect(limitlessText({ gameId: 'digimon', cards }, cardNames)).toBe(expected);
  });

  it('digimon snapdeck matches the Untap export (its column padding aside)', () => {
    const file = raw('digimon/decks/untap_export.txt');
    const cards: CardEntry[] = [];
    const cardNames = new Map<string, string>();
    for (const row of file.split('\n').filter(Boolean)) {
      const [, qty, name, id] = /^(\d+) (.+?) +\(DCG\) \(([^)]+)\)$/.exec(row)!;
      cards.push(entry(id!, Number(qty)));
      cardNames.set(id!, name!);
    }
    const unpadded = file.replace(/ {2,}\(DCG\)/g, ' (DCG)');
    expect(snapdeckText({ gameId: 'digimon', cards }, cardNames)).toBe(unpadded.endsWith('\n') ? unpadded : `${unpadded}\n`);
  });

  const GA_ZONES: Record<string, string> = { Main: 'main', 'Main Deck': 'main', Material: 'material', 'Material Deck': 'material', Sideboard: 'sideboard' };
  const gaFiles = ['fanofinsight_fire_guo_jia_impact_hammer.txt', 'fanofinsight_tera_silvie_baby_silver_slime.txt', 'fanofinsight_water_diao_chan.txt', 'fanofinsight_wind_arisanna_distilled_water.txt', 'omnideck_export_tristan.txt'];

  it.each(gaFiles)('grand-archive format=text matches %s (sections in the contract order)', (name) => {
    const file = raw(`grand-archive/decks/${name}`);
    // The real lists: `# <Section>` blocks of `{qty} {name}` lines separated by one blank line.
    const blocks = file.replace(/\n$/, '').split('\n\n');
    const cards: CardEntry[] = [];
    const cardNames = new Map<string, string>();
    const byZone = new Map<string, string[]>();
    for (const block of blocks) {
      const [header, ...rows] = block.split('\n');
      const zone = GA_ZONES[/^# (.+)$/.exec(header!)![1]!]!;
      byZone.set(zone, rows);
      for (const row of rows) {
        const [, qty, cardName] = /^(\d+) (.+)$/.exec(row)!;
        const id = cardName!.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
        cards.push(entry(id, Number(qty), zone));
        cardNames.set(id, cardName!);
      }
    }
    // decisions.md fixes the section order (main, material, sideboard) and the labels (the
    // Omnideck export's); within that, the output is the real file's own lines and layout.
    const expected =
      [
        ['# Main Deck', ...byZone.get('main')!].join('\n'),
        ['# Material Deck', ...byZone.get('material')!].join('\n'),
        ...(byZone.has('sideboard') ? [['# Sideboard', ...byZone.get('sideboard')!].join('\n')] : []),
      ].join('\n\n') + '\n';
    expect(deckText({ gameId: 'grand-archive', cards }, cardNames)).toBe(expected);
    // The Omnideck export is the layout itself: byte for byte.
    if (name.startsWith('omnideck')) expect(deckText({ gameId: 'grand-archive', cards }, cardNames)).toBe(file);
  });
});
