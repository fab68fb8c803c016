import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeckStore } from '@snapdeck/store';
import { tempDb, type TempDb } from './helpers/deck-db.ts';
import { demoCurlLines, seedDemoDecks } from '../scripts/seed-demo-decks.ts';
import { ensureDefaultCatalog } from '../scripts/ensure-catalog.ts';

let t: TempDb;
beforeEach(() => {
  t = tempDb();
});
afterEach(() => t.close());

/** A small catalog with just the fields the seeder reads. */
function writeSmallCatalog(dir: string): Map<string, Set<string>> {
  mkdirSync(dir, { recursive: true });
  const ids = new Map<string, Set<string>>();
  const write = (game: string, cards: Record<string, unknown>[]) => {
    ids.set(game, new Set(cards.map((c) => c.id as string)));
    writeFileSync(join(dir, `${game}.jsonl`), cards.map((c) => JSON.stringify(c)).join('\n') + '\n');
  };
  const range = (n: number, make: (i: number) => Record<string, unknown>) => Array.from({ length: n }, (_, i) => make(i + 1));
  write('digimon', [...range(5, (i) => ({ id: `BT1-00${i}`, cardType: 'Digi-Egg' })), ...range(40, (i) => ({ id: `BT2-${100 + i}`, cardType: i % 3 ? 'Digimon' : 'Option' }))]);
  write('gundam', [...range(2, (i) => ({ id: `R-00${i}`, cardType: 'Resource' })), ...range(40, (i) => ({ id: `GD01-${100 + i}`, cardType: i % 4 ? 'Unit' : 'Pilot' })), { id: 'T-001', cardType: 'Unit Token' }]);
  write('grand-archive', [...range(20, (i) => ({ id: `regalia-${i}`, deckZone: 'material' })), ...range(40, (i) => ({ id: `spell-${i}`, deckZone: 'main' })), { id: 'token-1', deckZone: null }]);
  write('chrono-core', [...range(10, (i) => ({ id: `WNR01-${String(i).padStart(3, '0')}`, cardType: i === 1 ? 'Pilot' : 'Core' })), ...range(40, (i) => ({ id: `WNR01-${100 + i}`, cardType: 'Upgrade' }))]);
  return ids;
}

describe('seedDemoDecks', () => {
  it('seeds a few hundred realistic decks from the catalog, idempotently', async () => {
    const catalogDir = join(t.dir, 'catalog');
    const catalog = writeSmallCatalog(catalogDir);
    const seeded = await seedDemoDecks({ db: t.db, catalogDir });
    expect(seeded.decks).toBe(400);
    expect(seeded.privateDecks).toBeGreaterThan(20);
    expect(seeded.privateDecks).toBeLessThan(70);

    const perGame = t.db.prepare('SELECT game_id, COUNT(*) AS n FROM decks GROUP BY game_id').all();
    expect(perGame).toEqual(['chrono-core', 'digimon', 'grand-archive', 'gundam'].map((game_id) => ({ game_id, n: 100 })));

    // Every card exists in its game's catalog, in a zone real decks of that game use.
    const rows = t.db.prepare('SELECT d.game_id AS game, c.card_id AS card, c.zone_id AS zone FROM deck_cards c JOIN decks d ON d.seq = c.deck_seq').all() as { game: string; card: string; zone: string | null }[];
    for (const row of rows) expect(catalog.get(row.game)!.has(row.card), `${row.game} ${row.card}`).toBe(true);
    const zones = (game: string) => [...new Set(rows.filter((r) => r.game === game).map((r) => r.zone))].sort();
    expect(zones('digimon')).toEqual(['digi-egg', 'main']);
    expect(zones('gundam')).toEqual(['main', 'resource']);
    expect(zones('grand-archive')).toEqual(['main', 'material', 'sideboard']);
    expect(zones('chrono-core')).toEqual(['loadout', 'main', 'sideboard', null].sort());

    const store = new DeckStore(t.db);
    for (const example of seeded.examples) {
      expect(store.getDeck(example.deckId)!.visibility).toBe('private');
      expect(store.resolveToken(example.deckId, example.shareToken)).toBe(true);
      expect(store.resolveToken(example.deckId, example.privateLink)).toBe(true);
    }
    expect(seeded.examples).toHaveLength(2);

    // Again: same decks, same number of rows, fresh tokens replacing the old ones.
    const before = { decks: t.db.prepare('SELECT COUNT(*) FROM decks').pluck().get(), cards: t.db.prepare('SELECT COUNT(*) FROM deck_cards').pluck().get() };
    const again = await seedDemoDecks({ db: t.db, catalogDir });
    expect({ decks: t.db.prepare('SELECT COUNT(*) FROM decks').pluck().get(), cards: t.db.prepare('SELECT COUNT(*) FROM deck_cards').pluck().get() }).toEqual(before);
    expect(again.examples.map((e) => e.deckId)).toEqual(seeded.examples.map((e) => e.deckId));
    expect(t.db.prepare('SELECT COUNT(*) FROM deck_tokens').pluck().get()).toBe(4);
    expect(store.resolveToken(seeded.examples[0]!.deckId, seeded.examples[0]!.privateLink)).toBe(false);

    const lines = demoCurlLines(again);
    expect(lines.some((l) => l.includes(`token=${again.examples[0]!.privateLink}`))).toBe(true);
    expect(lines.every((l) => l.includes('{base}'))).toBe(true);
  });

  it('explains a missing catalog', async () => {
    await expect(seedDemoDecks({ db: t.db, catalogDir: join(t.dir, 'none') })).rejects.toThrow(/generate-catalog/);
  });

  const defaultCatalog = resolve(import.meta.dirname, '../data/catalog');
  it('works on the default catalog', async () => {
    ensureDefaultCatalog(defaultCatalog); // `npm ci` made it already; this only covers a bare checkout
    const seeded = await seedDemoDecks({ db: t.db, catalogDir: defaultCatalog });
    expect(seeded.result.upserted).toBe(400);
  });
});
