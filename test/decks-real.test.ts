/**
 * Every real deck list over the real-data catalog, through HTTP (skipped when ../shared/data/raw is
 * not checked out): the catalog is imported with scripts/import-real.ts and built into snapshots,
 * every real deck file that has a card list (test/helpers/real-decks.ts: 98 decks) is imported as
 * a deck, and every deck comes back in every shape and export:
 *
 * - card ids, quantities and order match the file, for every deck and export;
 * - cards missing from the real catalogs are counted and named (the known gaps below), not skipped;
 * - the Omnideck export is byte-identical through format=text, the Sleeved text export and the
 *   gundam Limitless export stay byte-identical;
 * - digimon exports without sections come back with their eggs under `// Digi-Egg Deck`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GameSlug } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { importRealCatalog, realDataDir } from '../scripts/import-real.ts';
import { startTestGateway, tempDir } from './helpers/harness.ts';
import { BOTH_SCOPES, DeckClient, TEXT_PLAIN, idGenerator, importLines, type DeckLine } from './helpers/decks.ts';
import { gaSlug, parseSleeved, realDecks, type Entry, type RealDeck } from './helpers/real-decks.ts';

const raw = realDataDir();
const read = (path: string) => readFileSync(join(raw ?? '', path), 'utf8');
const ABBREVIATION: Record<GameSlug, string> = { digimon: 'DCG', gundam: 'GUN', 'grand-archive': 'GA', 'chrono-core': 'CC' };

/**
 * The known data gaps by name (SOURCES.md, grand-archive): card names of the newer Grand Archive
 * lists that the real catalog, which predates those sets, does not have. Chrono Core's gaps are
 * by id: the cards its real data shows without a name (`unnamedChronoIds`), left out of the catalog.
 */
const KNOWN_GAPS: Record<GameSlug, string[]> = {
  digimon: [],
  gundam: [],
  'chrono-core': [],
  'grand-archive': [
    "Aella, Zephyr's Hand", 'Aenean Frostlance', 'Aenean Frozen Shunt', 'Aenean Ward', "Alchemist's Cauldron", 'Blood Surge', 'Combustible Potion',
    'Crimson Vein', 'Cryogenic Ritual', 'Dante, Aenean Initiate', 'Dante, Hemomancer', 'Dante, Prodigal Swain', 'Distilled Water', 'Elysian Aspirant',
    'Eminence in Fury', 'Essence Crucible', 'Floral Arrangement', 'Gencode Womb', 'Hemoflux Drain', 'Keen Tidebinder', 'Magus Initiate',
    'Memory Invocation', "Psychopomp's Gale", 'Pure Cytosynth', 'Shieldroid', 'Slime Calling', 'Soothing Potion', 'Speed Potion', 'Spellshield: Exia',
    'Stifling Gyre', 'Unruled Bereavement', 'Venous Core',
  ],
};

const unnamedChronoIds = (): ReadonlySet<string> =>
  new Set((JSON.parse(read('chrono-core/cards_from_sleeved_examples.json')) as { unnamed_ids: string[] }).unnamed_ids);

interface Imported extends RealDeck {
  id: string;
}

describe.skipIf(!raw)('every real deck list over the real catalog, through HTTP', () => {
  let gateway: Awaited<ReturnType<typeof startTestGateway>>;
  let client: DeckClient;
  let cleanup: () => Promise<void>;
  let key: string;
  const newId = idGenerator(2026);
  const imported: Imported[] = [];
  /** Catalog cards by game and id (the real catalog as built). */
  const catalog = new Map<GameSlug, Map<string, { name?: unknown; cardType?: unknown }>>();
  const gaIds = new Map<string, string[]>();
  /** Grand Archive names the catalog lacks, met while parsing (stored under their slug). */
  const gaMissing = new Set<string>();

  const gaIdOf = (name: string): string => {
    const ids = gaIds.get(name);
    if (!ids) {
      gaMissing.add(name);
      return gaSlug(name);
    }
    expect(ids, `${name} is one card of the real Grand Archive catalog`).toHaveLength(1);
    return ids[0]!;
  };
  const inCatalog = (game: GameSlug, id: string) => catalog.get(game)!.has(id);
  const isEgg = (id: string) => catalog.get('digimon')!.get(id)?.cardType === 'Digi-Egg';
  const bySource = (source: string) => imported.find((d) => d.source === source)!;

  function line(id: string, deck: RealDeck, cards: Entry[] = deck.cards): DeckLine {
    return { id, gameId: deck.gameId, name: deck.source, ownerDisplayName: 'real data', visibility: 'public', createdAt: '2026-01-24T00:00:00Z', updatedAt: '2026-01-24T00:00:00Z', cards };
  }

  /** The Sleeved text export stored without loadout/main zones (resolved from the catalog). */
  const SLEEVED_BARE = newId();

  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir('snapdeck-decks-real-'));
    importRealCatalog({ raw: raw!, out: join(dir, 'catalog') });
    await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [100] });
    gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
    client = await DeckClient.create(gateway.url);
    key = gateway.createKey({ scopes: BOTH_SCOPES, quota: 1_000_000 });
    for (const game of ['digimon', 'gundam', 'grand-archive', 'chrono-core'] as const) {
      const cards = readFileSync(join(dir, 'catalog', `${game}.jsonl`), 'utf8').split('\n').filter(Boolean).map((text) => JSON.parse(text) as { id: string; name: unknown });
      catalog.set(game, new Map(cards.map((card) => [card.id, card])));
      if (game === 'grand-archive') for (const card of cards) gaIds.set(card.name as string, [...(gaIds.get(card.name as string) ?? []), card.id]);
    }
    const lines: DeckLine[] = [];
    for (const deck of realDecks(raw!, gaIdOf)) {
      const id = newId();
      imported.push({ ...deck, id });
      lines.push(line(id, deck));
    }
    const sleeved = imported.find((d) => d.source.endsWith('sleeved_text_export.txt'))!;
    lines.push(line(SLEEVED_BARE, sleeved, sleeved.cards.map((c) => (c.zoneId === 'sideboard' ? c : { cardId: c.cardId, quantity: c.quantity }))));
    await importLines(join(dir, 'snapdeck.db'), lines);
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await cleanup?.();
  });

  const get = (path: string, withKey = false) => client.get(path, withKey ? { 'X-API-Key': key } : {});
  const total = (cards: Array<{ quantity: number }>) => cards.reduce((sum, card) => sum + card.quantity, 0);

  /** The zone the contract serves a real entry with (decisions.md "Zones"; real zones are all recognised). */
  function servedZone(deck: RealDeck, entry: Entry): string {
    if (entry.zoneId) return entry.zoneId;
    return deck.gameId === 'digimon' && isEgg(entry.cardId) ? 'digi-egg' : 'main';
  }

  it('imports all 98 real deck lists of the four games', () => {
    expect(imported).toHaveLength(98);
    const perGame = (game: GameSlug) => imported.filter((d) => d.gameId === game).length;
    expect({ digimon: perGame('digimon'), gundam: perGame('gundam'), 'grand-archive': perGame('grand-archive'), 'chrono-core': perGame('chrono-core') }).toEqual({
      digimon: 75,
      gundam: 12,
      'grand-archive': 9,
      'chrono-core': 2,
    });
  });

  it('cards missing from the real catalogs are exactly the known gaps, counted per deck', async () => {
    expect([...gaMissing].sort()).toEqual(KNOWN_GAPS['grand-archive']);
    const missingEntries: Record<string, number> = {};
    for (const deck of imported) {
      const missing = deck.cards.filter((c) => !inCatalog(deck.gameId, c.cardId));
      const unexplained = deck.gameId === 'chrono-core' ? missing.filter((c) => !unnamedChronoIds().has(c.cardId)) : missing;
      if (deck.gameId !== 'grand-archive') expect(unexplained, deck.source).toEqual([]);
      if (missing.length > 0) missingEntries[deck.source] = missing.length;
    }
    // Chrono Core: the Sleeved JSON export's unnamed cards print their id as their name.
    const sleeved = imported.find((d) => d.source.endsWith('sleeved_json_export.json'))!;
    const unnamed = sleeved.cards.filter((c) => unnamedChronoIds().has(c.cardId));
    expect(unnamed.length).toBeGreaterThan(10);
    const text = (await get(`/decks/${sleeved.id}?format=text`)).text;
    for (const entry of unnamed) expect(text).toContain(`${entry.quantity} ${entry.cardId} (${entry.cardId})\n`);
    // Served the way decisions.md says: ga-tts gives such an entry a null card; format=text its id as its name.
    for (const deck of imported.filter((d) => d.gameId === 'grand-archive')) {
      const tts = await get(`/decks/${deck.id}?format=ga-tts`);
      const entries = Object.values(tts.body.data.zones).flat() as Array<{ cardId: string; card: unknown; name: string }>;
      const nulls = entries.filter((entry) => entry.card === null);
      expect(nulls.length, deck.source).toBe(missingEntries[deck.source] ?? 0);
      for (const entry of nulls) expect(entry.name).toBe(entry.cardId);
    }
    // Five of the nine Grand Archive lists (the newer sets) are affected; the Omnideck export is not.
    expect(Object.keys(missingEntries).length).toBeGreaterThan(0);
    expect(Object.keys(missingEntries).some((source) => source.includes('omnideck'))).toBe(false);
  });

  it('every deck: JSON and details give the file\'s cards, quantities and order, with contract zones', async () => {
    for (const deck of imported) {
      const want = deck.cards.map((entry) => ({ cardId: entry.cardId, quantity: entry.quantity, zoneId: servedZone(deck, entry) }));
      const json = await get(`/decks/${deck.id}`);
      expect(json.status, deck.source).toBe(200);
      expect(json.body.data.cards, deck.source).toEqual(want);
    }
    for (let i = 0; i < imported.length; i += 50) {
      const batch = imported.slice(i, i + 50);
      const details = await client.post('/decks/details', JSON.stringify({ ids: batch.map((d) => d.id) }), { 'X-API-Key': key });
      expect(details.body.data.unresolved).toEqual([]);
      for (const [j, deck] of batch.entries()) expect(details.body.data.decks[j].cards.map((c: Entry) => [c.cardId, c.quantity]), deck.source).toEqual(deck.cards.map((c) => [c.cardId, c.quantity]));
    }
  });

  it('every deck: format=text, snapdeck and limitless list every entry once with its quantity and catalog name', async () => {
    for (const deck of imported) {
      const game = deck.gameId;
      const nameOf = (id: string) => {
        const card = catalog.get(game)!.get(id);
        if (!card) return id;
        return typeof card.name === 'string' ? card.name : (card.name as { english: string }).english;
      };
      const expectedRows = (format: (entry: Entry) => string) => deck.cards.map(format).sort();
      const text = await get(`/decks/${deck.id}?format=text`);
      expect(text.headers.get('content-type')).toBe(TEXT_PLAIN);
      const cardRows = text.text.split('\n').filter((row) => row !== '' && !row.startsWith('//') && !row.startsWith('#'));
      if (game === 'grand-archive') expect(cardRows.sort(), deck.source).toEqual(expectedRows((c) => `${c.quantity} ${nameOf(c.cardId)}`));
      else expect(cardRows.sort(), deck.source).toEqual(expectedRows((c) => `${c.quantity} ${nameOf(c.cardId)} (${c.cardId})`));
      const snapdeck = await get(`/decks/${deck.id}/text?format=snapdeck`, true);
      expect(snapdeck.text.split('\n').filter(Boolean).sort(), deck.source).toEqual(expectedRows((c) => `${c.quantity} ${nameOf(c.cardId)} (${ABBREVIATION[game]}) (${c.cardId})`));
      const limitless = await get(`/decks/${deck.id}/text?format=limitless`, true);
      const limitlessRows = limitless.text.split('\n').filter(Boolean);
      expect([...limitlessRows].sort(), deck.source).toEqual(expectedRows((c) => `${c.quantity} ${nameOf(c.cardId)} ${c.cardId}`));
      expect(total(limitlessRows.map((row) => ({ quantity: Number(row.split(' ')[0]) }))), deck.source).toBe(total(deck.cards));
    }
  });

  it('grand-archive: the Omnideck export is byte-identical through format=text', async () => {
    const file = read('grand-archive/decks/omnideck_export_tristan.txt');
    const r = await get(`/decks/${bySource('grand-archive/decks/omnideck_export_tristan.txt').id}?format=text`);
    expect(r.headers.get('content-type')).toBe(TEXT_PLAIN);
    expect(r.text).toBe(file);
  });

  it('grand-archive: the Fan of Insight lists come back as the Omnideck layout: their lines, with names the catalog lacks as ids', async () => {
    for (const deck of imported.filter((d) => d.source.includes('fanofinsight'))) {
      const file = read(deck.source);
      const expected = file
        .replace(/^# Main$/m, '# Main Deck')
        .replace(/^# Material$/m, '# Material Deck')
        .replace(/^(\d+) (.+)$/gm, (row, qty: string, name: string) => (KNOWN_GAPS['grand-archive'].includes(name) ? `${qty} ${gaSlug(name)}` : row));
      expect((await get(`/decks/${deck.id}?format=text`)).text, deck.source).toBe(expected);
    }
  });

  it('chrono-core: format=text reproduces the Sleeved text export byte for byte, zones stored or resolved from the catalog', async () => {
    const file = read('chrono-core/decks/sleeved_text_export.txt');
    const stored = bySource('chrono-core/decks/sleeved_text_export.txt').id;
    for (const id of [stored, SLEEVED_BARE]) {
      const r = await get(`/decks/${id}?format=text`);
      expect(r.headers.get('content-type')).toBe(TEXT_PLAIN);
      expect(r.text).toBe(file);
    }
    expect((await get(`/decks/${SLEEVED_BARE}`)).body.data.cards).toEqual((await get(`/decks/${stored}`)).body.data.cards);
    expect(parseSleeved(file).filter((c) => c.zoneId === 'loadout')).toHaveLength(6);
  });

  it('gundam: /text?format=limitless reproduces the Limitless export byte for byte; format=text is the same list with ids in brackets', async () => {
    const file = read('gundam/decks/limitless_export.txt');
    const id = bySource('gundam/decks/limitless_export.txt').id;
    const limitless = await get(`/decks/${id}/text?format=limitless`, true);
    expect(limitless.headers.get('content-type')).toBe(TEXT_PLAIN);
    expect(limitless.text).toBe(file);
    expect((await get(`/decks/${id}?format=text`)).text).toBe(file.replace(/ (\S+)$/gm, ' ($1)'));
    expect((await get(`/decks/${id}/text?format=snapdeck`, true)).text).toBe(file.replace(/ (\S+)$/gm, ' (GUN) ($1)'));
  });

  it('digimon: exports without sections come back with their eggs under // Digi-Egg Deck, in the file\'s order', async () => {
    let withEggs = 0;
    for (const deck of imported.filter((d) => d.gameId === 'digimon' && !d.zoned)) {
      const eggs = deck.cards.filter((c) => isEgg(c.cardId)).map((c) => c.cardId);
      const rest = deck.cards.filter((c) => !isEgg(c.cardId)).map((c) => c.cardId);
      const rows = (await get(`/decks/${deck.id}?format=text`)).text.split('\n').filter(Boolean);
      const idOf = (row: string) => /\((\S+)\)$/.exec(row)![1];
      if (eggs.length === 0) {
        expect(rows.some((row) => row.startsWith('//')), deck.source).toBe(false);
        continue;
      }
      withEggs++;
      const main = rows.indexOf('// Main Deck');
      expect(rows[0], deck.source).toBe('// Digi-Egg Deck');
      expect(rows.slice(1, main).map(idOf), deck.source).toEqual(eggs);
      expect(rows.slice(main + 1).map(idOf), deck.source).toEqual(rest);
    }
    // All the one-deck exports and tournament lists carry eggs; so do most archetype aggregates.
    expect(withEggs).toBeGreaterThanOrEqual(60);
  });

  it('digimon: limitless is the digimoncard.io export with the eggs first and no headers; format=text adds the zone headers', async () => {
    const file = read('digimon/decks/digimoncardio_export.txt');
    const sections = { egg: [] as string[], main: [] as string[] };
    let zone: 'egg' | 'main' = 'main';
    for (const row of file.split('\n').filter(Boolean)) {
      if (row.startsWith('//')) zone = /Egg/.test(row) ? 'egg' : 'main';
      else sections[zone].push(row);
    }
    const id = bySource('digimon/decks/digimoncardio_export.txt').id;
    expect((await get(`/decks/${id}/text?format=limitless`, true)).text).toBe(`${[...sections.egg, ...sections.main].join('\n')}\n`);
    const bracketed = (rows: string[]) => rows.map((row) => row.replace(/ (\S+)$/, ' ($1)'));
    expect((await get(`/decks/${id}?format=text`)).text).toBe(`${['// Digi-Egg Deck', ...bracketed(sections.egg), '// Main Deck', ...bracketed(sections.main)].join('\n')}\n`);
  });
});
