/**
 * Real deck lists over the real-data catalog, through HTTP (skipped when ../shared/data/raw is not
 * checked out): the catalog is imported with scripts/import-real.ts and built into snapshots, the
 * real deck exports and tournament samples are imported as decks, and then
 *
 * - every card of every deck resolves: no export ever prints a card id as its name;
 * - GET /v1/decks/{id}?format=text of the Sleeved Chrono Core export reproduces the file byte for
 *   byte, also when the deck was stored without loadout/main zones (catalog zone resolution);
 * - GET /v1/decks/{id}/text?format=limitless of the Limitless Gundam export reproduces the file;
 * - the digimon limitless export and Grand Archive lists follow the real files' layouts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GameSlug } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { importRealCatalog, realDataDir } from '../scripts/import-real.ts';
import { startTestGateway, tempDir } from './helpers/harness.ts';
import { BOTH_SCOPES, DeckClient, TEXT_PLAIN, idGenerator, importLines, type DeckLine } from './helpers/decks.ts';

const raw = realDataDir();
const read = (path: string) => readFileSync(join(raw ?? '', path), 'utf8');
const readJson = (path: string): any => JSON.parse(read(path));
const ABBREVIATION: Record<GameSlug, string> = { digimon: 'DCG', gundam: 'GUN', 'grand-archive': 'GA', 'chrono-core': 'CC' };

describe.skipIf(!raw)('real deck lists over the real catalog, through HTTP', () => {
  let gateway: Awaited<ReturnType<typeof startTestGateway>>;
  let client: DeckClient;
  let cleanup: () => Promise<void>;
  let key: string;
  const newId = idGenerator(2026);
  const decks = new Map<string, DeckLine>();
  let gaByName = new Map<string, string[]>();

  function line(name: string, gameId: GameSlug, cards: DeckLine['cards']): DeckLine {
    const deck: DeckLine = {
      id: newId(),
      gameId,
      name,
      ownerDisplayName: 'real data',
      visibility: 'public',
      createdAt: '2026-01-24T00:00:00Z',
      updatedAt: '2026-01-24T00:00:00Z',
      cards,
    };
    decks.set(name, deck);
    return deck;
  }

  /** `{qty} {name} ({id})` lines under `// Zone` headers (the Sleeved text layout). */
  function parseSleeved(text: string): DeckLine['cards'] {
    const zones: Record<string, string> = { 'Starting Loadout': 'loadout', 'Main Deck': 'main', Sideboard: 'sideboard' };
    let zone = 'main';
    const cards: DeckLine['cards'] = [];
    for (const row of text.split('\n').filter(Boolean)) {
      const header = /^\/\/ (.+)$/.exec(row);
      if (header) {
        zone = zones[header[1]!]!;
        continue;
      }
      const [, qty, , id] = /^(\d+) (.+) \(([^)]+)\)$/.exec(row)!;
      cards.push({ cardId: id!, quantity: Number(qty), zoneId: zone });
    }
    return cards;
  }

  /** Grand Archive `# Section` blocks of `{qty} {name}` lines, names mapped to catalog ids. */
  function parseGa(text: string): { cards: DeckLine['cards']; sections: Map<string, string[]> } {
    const zones: Record<string, string> = { Main: 'main', 'Main Deck': 'main', Material: 'material', 'Material Deck': 'material', Sideboard: 'sideboard' };
    const cards: DeckLine['cards'] = [];
    const sections = new Map<string, string[]>();
    for (const block of text.replace(/\n+$/, '').split('\n\n')) {
      const [header, ...rows] = block.split('\n');
      const zone = zones[/^# (.+)$/.exec(header!)![1]!]!;
      sections.set(zone, rows);
      for (const row of rows) {
        const [, qty, name] = /^(\d+) (.+)$/.exec(row)!;
        const ids = gaByName.get(name!);
        expect(ids, `${name} is one card of the real Grand Archive catalog`).toHaveLength(1);
        cards.push({ cardId: ids![0]!, quantity: Number(qty), zoneId: zone });
      }
    }
    return { cards, sections };
  }

  const GA_FILES = ['fanofinsight_fire_guo_jia_impact_hammer.txt', 'fanofinsight_water_diao_chan.txt', 'omnideck_export_tristan.txt'];
  const GA_STARTERS = ['Jin Starter Deck', 'Arisanna Starter Deck', 'Tonoris Starter Deck'];

  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir('snapdeck-decks-real-'));
    importRealCatalog({ raw: raw!, out: join(dir, 'catalog') });
    await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [100] });
    gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
    client = await DeckClient.create(gateway.url);
    key = gateway.createKey({ scopes: BOTH_SCOPES, quota: 1_000_000 });
    for (const text of readFileSync(join(dir, 'catalog', 'grand-archive.jsonl'), 'utf8').split('\n').filter(Boolean)) {
      const card = JSON.parse(text) as { id: string; name: string };
      gaByName.set(card.name, [...(gaByName.get(card.name) ?? []), card.id]);
    }

    const lines: DeckLine[] = [];
    // Chrono Core: the Sleeved text export, as is and without loadout/main zones; the JSON export.
    const sleeved = parseSleeved(read('chrono-core/decks/sleeved_text_export.txt'));
    lines.push(line('cc sleeved text', 'chrono-core', sleeved));
    lines.push(line('cc sleeved text, no zones', 'chrono-core', sleeved.map((c) => (c.zoneId === 'sideboard' ? c : { cardId: c.cardId, quantity: c.quantity }))));
    const json = readJson('chrono-core/decks/sleeved_json_export.json') as { zones: Record<string, string[]> };
    const fromJson = (keepZones: boolean): DeckLine['cards'] => {
      const cards: DeckLine['cards'] = [];
      for (const [zone, ids] of Object.entries(json.zones)) {
        const counts = new Map<string, number>();
        for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
        for (const [cardId, quantity] of counts) cards.push(keepZones || zone === 'sideboard' ? { cardId, quantity, zoneId: zone } : { cardId, quantity });
      }
      return cards;
    };
    lines.push(line('cc sleeved json', 'chrono-core', fromJson(true)));
    lines.push(line('cc sleeved json, no zones', 'chrono-core', fromJson(false)));
    // Gundam: the Limitless export and the tournament sample.
    const limitless = read('gundam/decks/limitless_export.txt');
    lines.push(line('gundam limitless', 'gundam', limitless.split('\n').filter(Boolean).map((row) => {
      const [, qty, , id] = /^(\d+) (.+) (\S+)$/.exec(row)!;
      return { cardId: id!, quantity: Number(qty) };
    })));
    for (const d of readJson('gundam/decks/tournament_decks_sample.json').decks as Array<{ name: string; entries: Array<{ cardId: string; qty: number }> }>) {
      lines.push(line(`gundam ${d.name}`, 'gundam', d.entries.map((e) => ({ cardId: e.cardId, quantity: e.qty, zoneId: 'main' }))));
    }
    // Digimon: the tournament sample (eggs and main deck merged, no zones) and the digimoncard.io export.
    for (const d of readJson('digimon/decks/tournament_decks_sample.json').decks as Array<{ deck_name: string; id: number; cards: Record<string, number> }>) {
      lines.push(line(`digimon ${d.id} ${d.deck_name}`, 'digimon', Object.entries(d.cards).map(([cardId, quantity]) => ({ cardId, quantity }))));
    }
    let zone = 'main';
    const io: DeckLine['cards'] = [];
    for (const row of read('digimon/decks/digimoncardio_export.txt').split('\n').filter(Boolean)) {
      if (row.startsWith('//')) {
        zone = /Egg/.test(row) ? 'digi-egg' : 'main';
        continue;
      }
      const [, qty, , id] = /^(\d+) (.+) (\S+)$/.exec(row)!;
      io.push({ cardId: id!, quantity: Number(qty), zoneId: zone });
    }
    lines.push(line('digimon digimoncard.io', 'digimon', io));
    // Grand Archive: real lists whose cards are all in the real catalog.
    for (const file of GA_FILES) lines.push(line(`ga ${file}`, 'grand-archive', parseGa(read(`grand-archive/decks/${file}`)).cards));
    for (const d of readJson('grand-archive/decks/official_starter_decks_sample.json').decks as Array<{ label: string; text: string }>) {
      if (GA_STARTERS.includes(d.label)) lines.push(line(`ga ${d.label}`, 'grand-archive', parseGa(d.text).cards));
    }
    await importLines(join(dir, 'snapdeck.db'), lines);
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await cleanup?.();
  });

  const get = (path: string, withKey = false) => client.get(path, withKey ? { 'X-API-Key': key } : {});
  const deckOf = (name: string) => decks.get(name)!;

  it('imported the decks (at least 25 across the four games)', () => {
    expect(decks.size).toBeGreaterThanOrEqual(25);
    expect(new Set([...decks.values()].map((d) => d.gameId))).toEqual(new Set(['digimon', 'gundam', 'grand-archive', 'chrono-core']));
  });

  it('every card of every deck resolves: no export prints an id as a name', async () => {
    for (const deck of decks.values()) {
      const ids = new Set(deck.cards.map((c) => c.cardId));
      const abbreviation = ABBREVIATION[deck.gameId];
      const text = await get(`/decks/${deck.id}?format=text`);
      expect(text.status).toBe(200);
      expect(text.headers.get('content-type')).toBe(TEXT_PLAIN);
      const cardLines = text.text.split('\n').filter((row) => row !== '' && !row.startsWith('//') && !row.startsWith('#'));
      if (deck.gameId === 'grand-archive') {
        for (const row of cardLines) expect(ids.has(/^\d+ (.+)$/.exec(row)![1]!), `${deck.name}: ${row}`).toBe(false);
      } else {
        expect(cardLines.length, deck.name).toBe(deck.cards.length);
        for (const row of cardLines) {
          const [, , name, id] = /^(\d+) (.+) \((\S+)\)$/.exec(row)!;
          expect(name, `${deck.name}: ${row}`).not.toBe(id);
        }
      }
      const snapdeck = await get(`/decks/${deck.id}/text?format=snapdeck`, true);
      const snapLines = snapdeck.text.split('\n').filter(Boolean);
      expect(snapLines.length, deck.name).toBe(deck.cards.length);
      for (const row of snapLines) {
        const match = new RegExp(`^(\\d+) (.+) \\(${abbreviation}\\) \\((\\S+)\\)$`).exec(row);
        expect(match, `${deck.name}: ${row}`).not.toBeNull();
        expect(match![2], `${deck.name}: ${row}`).not.toBe(match![3]);
      }
      const limitless = await get(`/decks/${deck.id}/text?format=limitless`, true);
      for (const row of limitless.text.split('\n').filter(Boolean)) {
        const [, , name, id] = /^(\d+) (.+) (\S+)$/.exec(row)!;
        expect(name, `${deck.name}: ${row}`).not.toBe(id);
      }
      if (deck.gameId === 'grand-archive') {
        const tts = await get(`/decks/${deck.id}?format=ga-tts`);
        for (const entries of Object.values(tts.body.data.zones) as Array<Array<{ card: unknown; imageUrl: unknown; name: string; cardId: string }>>) {
          for (const entry of entries) {
            expect(entry.card, `${deck.name}: ${entry.cardId}`).not.toBeNull();
            expect(entry.imageUrl).toMatch(/^https?:\/\//);
            expect(entry.name).not.toBe(entry.cardId);
          }
        }
      }
    }
    // And the bulk endpoint returns them all.
    const all = [...decks.values()].map((d) => d.id);
    const details = await client.post('/decks/details', JSON.stringify({ ids: all }), { 'X-API-Key': key });
    expect(details.body.data.unresolved).toEqual([]);
    expect(details.body.data.decks).toHaveLength(all.length);
  });

  it('chrono-core format=text reproduces the Sleeved text export byte for byte, zones stored or resolved from the catalog', async () => {
    const file = read('chrono-core/decks/sleeved_text_export.txt');
    for (const name of ['cc sleeved text', 'cc sleeved text, no zones']) {
      const r = await get(`/decks/${deckOf(name).id}?format=text`);
      expect(r.headers.get('content-type')).toBe(TEXT_PLAIN);
      expect(r.text, name).toBe(file);
    }
    const stored = await get(`/decks/${deckOf('cc sleeved text').id}`);
    const resolved = await get(`/decks/${deckOf('cc sleeved text, no zones').id}`);
    expect(resolved.body.data.cards).toEqual(stored.body.data.cards);
  });

  it('chrono-core: the Sleeved JSON export stored without loadout/main zones resolves to its own zones', async () => {
    const zoned = await get(`/decks/${deckOf('cc sleeved json').id}`);
    const bare = await get(`/decks/${deckOf('cc sleeved json, no zones').id}`);
    expect(bare.body.data.cards).toEqual(zoned.body.data.cards);
    const details = await client.post('/decks/details', JSON.stringify({ ids: [deckOf('cc sleeved json, no zones').id] }), { 'X-API-Key': key });
    expect(details.body.data.decks[0].cards).toEqual(zoned.body.data.cards);
    const loadout = zoned.body.data.cards.filter((c: { zoneId: string }) => c.zoneId === 'loadout');
    expect(loadout.length).toBe(7);
  });

  it('gundam /text?format=limitless reproduces the Limitless export byte for byte; format=text is the same list with ids in brackets', async () => {
    const file = read('gundam/decks/limitless_export.txt');
    const id = deckOf('gundam limitless').id;
    const limitless = await get(`/decks/${id}/text?format=limitless`, true);
    expect(limitless.headers.get('content-type')).toBe(TEXT_PLAIN);
    expect(limitless.text).toBe(file);
    expect((await get(`/decks/${id}?format=text`)).text).toBe(file.replace(/ (\S+)$/gm, ' ($1)'));
    expect((await get(`/decks/${id}/text?format=snapdeck`, true)).text).toBe(file.replace(/ (\S+)$/gm, ' (GUN) ($1)'));
  });

  it('digimon: limitless is the digimoncard.io export with the eggs first and no headers; format=text adds the zone headers', async () => {
    const file = read('digimon/decks/digimoncardio_export.txt');
    const sections = { egg: [] as string[], main: [] as string[] };
    let zone: 'egg' | 'main' = 'main';
    for (const row of file.split('\n').filter(Boolean)) {
      if (row.startsWith('//')) zone = /Egg/.test(row) ? 'egg' : 'main';
      else sections[zone].push(row);
    }
    const id = deckOf('digimon digimoncard.io').id;
    expect((await get(`/decks/${id}/text?format=limitless`, true)).text).toBe(`${[...sections.egg, ...sections.main].join('\n')}\n`);
    const bracketed = (rows: string[]) => rows.map((row) => row.replace(/ (\S+)$/, ' ($1)'));
    expect((await get(`/decks/${id}?format=text`)).text).toBe(`${['// Digi-Egg Deck', ...bracketed(sections.egg), '// Main Deck', ...bracketed(sections.main)].join('\n')}\n`);
  });

  it.each([...GA_FILES, ...GA_STARTERS])('grand-archive format=text of %s: the real lines in the contract section order', async (name) => {
    const text = GA_FILES.includes(name) ? read(`grand-archive/decks/${name}`) : (readJson('grand-archive/decks/official_starter_decks_sample.json').decks as Array<{ label: string; text: string }>).find((d) => d.label === name)!.text;
    const { sections } = parseGa(text);
    const expected =
      [
        ['# Material Deck', ...sections.get('material')!].join('\n'),
        ['# Main Deck', ...sections.get('main')!].join('\n'),
        ...(sections.has('sideboard') ? [['# Sideboard', ...sections.get('sideboard')!].join('\n')] : []),
      ].join('\n\n') + '\n';
    const r = await get(`/decks/${deckOf(`ga ${name}`).id}?format=text`);
    expect(r.text).toBe(expected);
    if (name.startsWith('omnideck')) expect(r.text.split('\n').filter(Boolean).sort()).toEqual(text.split('\n').filter(Boolean).sort());
  });
});
