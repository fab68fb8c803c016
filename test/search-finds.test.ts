/**
 * What a search must find (decisions.md "Search"), through @snapdeck/client
 * against a real gateway: the words of a card's name, the word being typed as a prefix, ids and
 * card numbers exactly, rules text ranked below names, case and accents ignored. The walk and the
 * index agree: every card a walk of the version yields is found by its id, first.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_MODELS, GAME_SLUGS, type GameSlug } from '@snapdeck/contract';
import { SnapdeckClient } from '@snapdeck/client';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const COUNTS = { digimon: 300, gundam: 200, 'grand-archive': 200, 'chrono-core': 56 } as const;
const ACCENTED = 'Élan Vitalmón';
let RULES_WORD: string;
const SHORT_NAMES = ['Kari Kamiya', 'Koichi Kimura', 'Kenta Kitagawa', 'Kazu Kishibe', 'Keenan Krier', 'Kouji Kamiya', 'Kai Kogure', 'K'];
/** A name that longer names hold whole, and a name whose first character the engine drops (real names of both). */
const HELD_NAMES = ['Agumon (X Antibody)', 'Gabumon (X Antibody)', 'Omnimon (X Antibody)', 'Dorumon (X Antibody)', 'Tailmon (X Antibody)', 'Gammamon (X Antibody)', 'X Antibody', 'Gundam', 'Gundam', '∀ Gundam'];

/** A card name one letter away from "Reveal", a word of rules text. */
const TYPO_NEIGHBOUR = 'Revel';

let gateway: TestGateway;
let cleanup: () => Promise<void>;
let client: SnapdeckClient;
let cards: Record<string, Array<Record<string, unknown> & { id: string }>>;

const nameOf = (game: GameSlug, card: Record<string, unknown>) => CARD_MODELS[game].nameOf(card as never);

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  const catalogDir = join(dir, 'catalog');
  cards = await writeGeneratedCatalog(catalogDir, COUNTS);
  // One card gets a name with accents.
  const gundam = join(catalogDir, 'gundam.jsonl');
  const lines = (await readFile(gundam, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
  lines[5].name = ACCENTED;
  cards.gundam![5]!.name = ACCENTED;
  // A name of one letter, among names whose words start with it.
  SHORT_NAMES.forEach((name, i) => {
    lines[30 + i].name = name;
    cards.gundam![30 + i]!.name = name;
  });
  HELD_NAMES.forEach((name, i) => {
    lines[40 + i].name = name;
    cards.gundam![40 + i]!.name = name;
  });
  await writeFile(gundam, lines.map((card) => JSON.stringify(card)).join('\n') + '\n');
  // One digimon card's rules text names another card's name word.
  const digimon = join(catalogDir, 'digimon.jsonl');
  const digimonLines = (await readFile(digimon, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
  RULES_WORD = (digimonLines[20].name.english as string).split(/[^A-Za-z]+/).sort((a, b) => b.length - a.length)[0]!;
  digimonLines[10].effect = `[On Play] Reveal 3 cards; add 1 ${RULES_WORD} among them to your hand.`;
  cards.digimon![10]!.effect = digimonLines[10].effect;
  // A name one letter away from a word that only rules text holds ("Reveal", above).
  digimonLines[12].name.english = TYPO_NEIGHBOUR;
  (cards.digimon![12]!.name as { english: string }).english = TYPO_NEIGHBOUR;
  await writeFile(digimon, digimonLines.map((card) => JSON.stringify(card)).join('\n') + '\n');
  await build({ catalogDir, storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [100] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  client = new SnapdeckClient({ baseUrl: gateway.base, apiKey: gateway.createKey({ quota: 1_000_000 }) });
}, 180_000);

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

describe('a search finds', () => {
  it('the cards of a whole name typed first, even a one-letter name whose letter starts many other names', async () => {
    const found = await client.searchCards('gundam', 'k', { limit: 5 });
    expect(found.hits.map((hit) => hit.name)[0]).toBe('K');
  });

  it('the cards of a whole name typed first when longer names hold it, or when the engine drops a character of it', async () => {
    expect((await client.searchCards('gundam', 'X Antibody', { limit: 5 })).hits.map((hit) => hit.name)[0]).toBe('X Antibody');
    expect((await client.searchCards('gundam', 'x antibody', { limit: 5 })).hits.map((hit) => hit.name)[0]).toBe('X Antibody');
    expect((await client.searchCards('gundam', '∀ Gundam', { limit: 5 })).hits.map((hit) => hit.name)[0]).toBe('∀ Gundam');
    expect((await client.searchCards('gundam', 'Gundam', { limit: 5 })).hits.map((hit) => hit.name).slice(0, 2)).toEqual(['Gundam', 'Gundam']);
  });

  it('every card a walk of the version yields, by its id, first (and by its card number)', async () => {
    for (const game of GAME_SLUGS) {
      const index = await client.searchIndex(game);
      const walked: string[] = [];
      for await (const hit of client.walkCards(game)) walked.push(hit.id);
      expect(walked.length).toBe(COUNTS[game]);
      expect((await index.search('', { limit: 1 })).total, game).toBe(walked.length);
      for (const id of walked) {
        const found = await index.search(id, { limit: 1 });
        expect(found.hits[0]?.id, `${game} ${id}`).toBe(id);
        expect(found.version).toBe(index.version);
      }
    }
  }, 300_000);

  it('the words of a name, the word being typed as a prefix, in any case', async () => {
    const index = await client.searchIndex('digimon');
    for (const card of cards.digimon!.slice(0, 40)) {
      const name = nameOf('digimon', card);
      const ids = async (query: string) => (await index.search(query, { limit: 50 })).hits.map((h) => h.id);
      expect(await ids(name), name).toContain(card.id);
      expect(await ids(name.toUpperCase()), name).toContain(card.id);
      const word = name.split(/\s+/).sort((a, b) => b.length - a.length)[0]!;
      if (word.length >= 5) expect(await ids(`${name.slice(0, name.indexOf(word))}${word.slice(0, 4)}`), `${name}: prefix`).toContain(card.id);
    }
  });

  it('names with accents, typed with or without them', async () => {
    const index = await client.searchIndex('gundam');
    const id = cards.gundam![5]!.id;
    for (const query of [ACCENTED, 'elan vitalmon', 'ÉLAN', 'vitalmón']) {
      expect((await index.search(query, { limit: 5 })).hits.map((h) => h.id), query).toContain(id);
    }
  });

  it('a word only rules text holds as typed, not as a typo of the closest card name', async () => {
    const index = await client.searchIndex('digimon');
    expect(cards.digimon!.some((c) => nameOf('digimon', c).toLowerCase().split(/[^a-z]+/).includes('reveal'))).toBe(false);
    const found = await index.search('reveal', { limit: 100 });
    expect(found.correctedTo).toBeUndefined();
    expect(found.hits.map((h) => h.id)).toContain(cards.digimon![10]!.id);
    expect(found.hits.map((h) => h.id)).not.toContain(cards.digimon![12]!.id);
    // A name typed with a typo is still corrected ("Revl" is no word of any card).
    expect((await index.search('Revl', { limit: 5 })).correctedTo).toBe(TYPO_NEIGHBOUR);
  });

  it('rules text, ranked below names', async () => {
    const index = await client.searchIndex('digimon');
    const word = RULES_WORD.toLowerCase();
    const inName = cards.digimon!.filter((c) => nameOf('digimon', c).toLowerCase().split(/[^a-z]+/).includes(word)).map((c) => c.id);
    const found = (await index.search(RULES_WORD, { limit: 100 })).hits.map((h) => h.id);
    const textOnly = cards.digimon![10]!.id;
    expect(inName.length).toBeGreaterThan(0);
    expect(inName).not.toContain(textOnly);
    expect(found, `${RULES_WORD} found in rules text`).toContain(textOnly);
    for (const id of inName) expect(found.indexOf(id), `${id} (name) before ${textOnly} (rules text)`).toBeLessThan(found.indexOf(textOnly));
  });
});
