/**
 * How a search ranks on the real catalogs (decisions.md "Search"), through @snapdeck/client
 * against a gateway: the name being typed first (its shortest completion, or the whole name),
 * names matched as typed whatever punctuation, digits or symbols they hold, one typo in a long or
 * compound name corrected to it (every name one edit away shown), ids first, rules text searched
 * as typed. The queries are the ones partners met before (test/search-finds.test.ts holds the
 * generated-catalog cases).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_MODELS, type GameSlug } from '@snapdeck/contract';
import { SnapdeckClient } from '@snapdeck/client';
import { FsDriver, build } from '@snapdeck/snapshot';
import { importRealCatalog, realDataDir } from '../scripts/import-real.ts';
import { startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const raw = realDataDir();
const GAMES: GameSlug[] = ['digimon', 'gundam', 'grand-archive'];

let gateway: TestGateway;
let cleanup: () => Promise<void>;
let client: SnapdeckClient;

/** The names of the first `limit` hits of a query. */
async function names(game: GameSlug, query: string, limit = 5): Promise<string[]> {
  const found = await client.searchCards(game, query, { limit });
  return found.hits.map((hit) => CARD_MODELS[game].nameOf(hit as never));
}

beforeAll(async () => {
  if (!raw) return;
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  importRealCatalog({ raw, out: join(dir, 'catalog'), games: GAMES });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), games: GAMES, hitsPerPage: [100] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  client = new SnapdeckClient({ baseUrl: gateway.base });
}, 180_000);

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

describe.skipIf(!raw)('a search on the real catalogs ranks', () => {
  it.each([
    ['digimon', 'Agum', 'Agumon'],
    ['digimon', 'Saku', 'Sakuyamon'],
    ['digimon', 'Knig', 'Knightmon'],
    ['gundam', 'GQuu', 'GQuuuuuuX'],
  ] as const)('the shortest name the query starts first: %s %j → %j', async (game, query, first) => {
    const shown = await names(game, query);
    expect(shown[0], shown.join(' | ')).toBe(first);
  });

  it('the other names the query starts after a few cards of the shortest, shortest first', async () => {
    const agum = await names('digimon', 'Agum', 10);
    expect(agum.slice(0, 6)).toEqual(['Agumon', 'Agumon', 'Agumon', 'Agumon Expert', 'Agumon (X Antibody)', 'Agumon - Bond of Bravery']);
  });

  it('the cards of a whole name typed first, all of them', async () => {
    expect(new Set(await names('digimon', 'Agumon', 10))).toEqual(new Set(['Agumon']));
    expect(new Set(await names('digimon', 'agumon', 10))).toEqual(new Set(['Agumon']));
    expect(await names('gundam', 'Gundam', 3)).toEqual(['Gundam', 'Gundam', 'Gundam']);
  });

  it.each([
    ['gundam', 'G-Fa', 'G-Falcon'],
    ['gundam', '0 Gund', '0 Gundam'],
    ['gundam', '∀ Gund', '∀ Gundam'],
    ['digimon', 'Digimon Empe', 'Digimon Emperor'],
    ['digimon', 'Aegiochusmon: Bl', 'Aegiochusmon: Blue'],
    ['grand-archive', "Alice, Whim's", "Alice, Whim's Monarch"],
    ['gundam', 'Big-', 'Big-Rang'],
  ] as const)('names as typed, punctuation, digits and symbols included: %s %j → %j', async (game, query, first) => {
    const shown = await names(game, query);
    expect(shown[0], shown.join(' | ')).toBe(first);
  });

  it.each([
    ['digimon', 'MetalGeymon', 'MetalGreymon'],
    ['digimon', 'MetauGreymon', 'MetalGreymon'],
    ['digimon', 'WarGeymon', 'WarGreymon'],
    ['digimon', 'Aguon', 'Agumon'],
    ['gundam', 'Gundam Asgtaron', 'Gundam Ashtaron'],
    ['gundam', 'Scuhzrum-Galluss', 'Schuzrum-Galluss'],
  ] as const)('one typo in a long or compound name, corrected: %s %j → %j', async (game, query, meant) => {
    const found = await client.searchCards(game, query, { limit: 5 });
    const shown = found.hits.map((hit) => CARD_MODELS[game].nameOf(hit as never));
    expect(shown[0], shown.join(' | ')).toBe(meant);
    expect(found.correctedTo).toBe(meant);
  });

  it('every name one edit from a typo: "Gatmon" shows Gatomon (an insertion) and Gaomon (a substitution)', async () => {
    const gatmon = await names('digimon', 'Gatmon');
    expect(gatmon).toContain('Gatomon');
    expect(gatmon).toContain('Gaomon');
  });

  it.each(['enrage', 'direwolf', 'zephyr', 'frostbind'])('an id first, even one longer names start with: %s', async (id) => {
    expect((await client.searchCards('grand-archive', id, { limit: 5 })).hits[0]?.id).toBe(id);
  });

  it('a word only rules text holds as typed, not as a typo of a name', async () => {
    const found = await client.searchCards('digimon', 'draw', { limit: 20 });
    expect(found.correctedTo).toBeUndefined();
    expect(found.total).toBeGreaterThan(20);
    for (const hit of found.hits) expect(JSON.stringify(hit).toLowerCase()).toContain('draw');
  });
});
