import { describe, expect, it, vi } from 'vitest';
import type { CardInfo, CardLookup } from './card-lookup.ts';
import { catalogLookup, lookupCards, namesOf } from './card-lookup.ts';
import { ResolvedDeckCache } from './resolved-cache.ts';
import type { StoredDeck } from './types.ts';
import { isRecognizedZone, needsCatalog, resolveZoneId, zoneLabel } from './zones.ts';
import { storedDeck } from '../../../../test/helpers/deck-db.ts';

describe('resolveZoneId', () => {
  it.each([
    // game, stored zone, catalog cardType, served zone
    ['digimon', null, null, 'main'], // card missing from the catalog
    ['digimon', null, 'Digi-Egg', 'digi-egg'],
    ['digimon', null, 'Digimon', 'main'],
    ['digimon', null, 'Tamer', 'main'],
    ['digimon', 'digi-egg', null, 'digi-egg'],
    ['digimon', 'main', null, 'main'],
    ['digimon', 'main', 'Digi-Egg', 'main'], // recognised: kept even when wrong
    ['digimon', 'digi-egg', 'Option', 'digi-egg'], // recognised: kept even when wrong
    ['digimon', 'egg', 'Digi-Egg', 'digi-egg'], // unrecognised: resolved
    ['digimon', 'extra', 'Digimon', 'main'], // unrecognised: resolved
    ['digimon', 'loadout', null, 'main'], // another game's zone is unrecognised here
    ['gundam', null, 'Resource', 'main'], // gundam never consults the catalog
    ['gundam', 'resource', null, 'resource'],
    ['gundam', 'extra', null, 'extra'], // open string: unrecognised zones are kept in gundam and grand-archive
    ['grand-archive', 'commander', null, 'commander'],
    ['grand-archive', null, null, 'main'],
    ['grand-archive', 'references', null, 'references'],
    ['chrono-core', null, 'Core', 'loadout'],
    ['chrono-core', null, 'Pilot', 'loadout'],
    ['chrono-core', null, 'Upgrade', 'main'],
    ['chrono-core', null, null, 'main'], // card missing from the catalog
    ['chrono-core', 'extra', 'Pilot', 'loadout'], // unrecognised: resolved
    ['chrono-core', 'digi-egg', 'Tactic', 'main'], // another game's zone is unrecognised here
    ['chrono-core', 'main', 'Pilot', 'main'], // recognised: kept even when wrong
    ['chrono-core', 'loadout', 'Tactic', 'loadout'],
    ['chrono-core', 'sideboard', 'Core', 'sideboard'],
  ] as const)('%s: stored %s, cardType %s → %s', (game, stored, cardType, served) => {
    expect(resolveZoneId(game, stored, cardType)).toBe(served);
  });

  it('knows which entries need the catalog', () => {
    expect(needsCatalog('chrono-core', null)).toBe(true);
    expect(needsCatalog('chrono-core', 'nope')).toBe(true);
    expect(needsCatalog('chrono-core', 'main')).toBe(false);
    expect(needsCatalog('digimon', null)).toBe(true);
    expect(needsCatalog('digimon', 'egg')).toBe(true);
    expect(needsCatalog('digimon', 'digi-egg')).toBe(false);
    expect(needsCatalog('gundam', null)).toBe(false);
    expect(needsCatalog('grand-archive', 'commander')).toBe(false);
    expect(isRecognizedZone('grand-archive', 'material')).toBe(true);
    expect(isRecognizedZone('gundam', 'material')).toBe(false);
  });

  it.each([
    ['digi-egg', 'Digi-Egg Deck'],
    ['main', 'Main Deck'],
    ['resource', 'Resource Deck'],
    ['loadout', 'Starting Loadout'],
    ['material', 'Material Deck'],
    ['sideboard', 'Sideboard'],
    ['references', 'References'],
    ['extra-deck', 'Extra-Deck'],
  ])('labels %s as %s', (zone, label) => {
    expect(zoneLabel(zone)).toBe(label);
  });
});

const chronoDeck = (updatedAt: number, cards: StoredDeck['cards']): StoredDeck => storedDeck({ updatedAt, cards });

function lookupOf(types: Record<string, string>): CardLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (id: string): Promise<CardInfo | null> => {
    calls.push(id);
    const cardType = types[id];
    return cardType ? { name: `Card ${id}`, imageUrl: null, cardType, card: { id, cardType } } : null;
  };
  return Object.assign(lookup, { calls });
}

describe('ResolvedDeckCache', () => {
  const cards: StoredDeck['cards'] = [
    { cardId: 'WNR01-001', quantity: 1, zoneId: null },
    { cardId: 'WNR01-002', quantity: 1, zoneId: null },
    { cardId: 'WNR01-022', quantity: 3, zoneId: null },
    { cardId: 'WNR01-022', quantity: 1, zoneId: 'sideboard' },
    { cardId: 'WNR01-999', quantity: 2, zoneId: 'main' },
    { cardId: 'SD01-001', quantity: 2, zoneId: null },
  ];

  it('resolves chrono-core entries from the catalog, looking each needed card up once', async () => {
    const cache = new ResolvedDeckCache();
    const lookup = lookupOf({ 'WNR01-001': 'Pilot', 'WNR01-002': 'Core', 'WNR01-022': 'Upgrade', 'WNR01-999': 'Core' });
    expect(await cache.resolve(chronoDeck(1, cards), lookup)).toEqual([
      { cardId: 'WNR01-001', quantity: 1, zoneId: 'loadout' },
      { cardId: 'WNR01-002', quantity: 1, zoneId: 'loadout' },
      { cardId: 'WNR01-022', quantity: 3, zoneId: 'main' },
      { cardId: 'WNR01-022', quantity: 1, zoneId: 'sideboard' },
      { cardId: 'WNR01-999', quantity: 2, zoneId: 'main' }, // recognised: kept although it is a Core
      { cardId: 'SD01-001', quantity: 2, zoneId: 'main' }, // not in the catalog
    ]);
    expect(lookup.calls.sort()).toEqual(['SD01-001', 'WNR01-001', 'WNR01-002', 'WNR01-022']);
  });

  it('keeps a deck\'s resolved zones until its updatedAt changes', async () => {
    const cache = new ResolvedDeckCache();
    const before = lookupOf({ 'WNR01-022': 'Upgrade' });
    const after = lookupOf({ 'WNR01-022': 'Core' }); // the catalog changed the card's type
    const deck = [{ cardId: 'WNR01-022', quantity: 3, zoneId: null }];
    expect((await cache.resolve(chronoDeck(1, deck), before))[0]!.zoneId).toBe('main');
    expect((await cache.resolve(chronoDeck(1, deck), after))[0]!.zoneId).toBe('main');
    expect(after.calls).toEqual([]);
    expect((await cache.resolve(chronoDeck(2, deck), after))[0]!.zoneId).toBe('loadout');
  });

  it('serves current ids and quantities, and resolves afresh when the entries changed under the same updatedAt', async () => {
    const cache = new ResolvedDeckCache();
    const lookup = lookupOf({ 'WNR01-001': 'Pilot', 'WNR01-022': 'Upgrade' });
    await cache.resolve(chronoDeck(1, [{ cardId: 'WNR01-022', quantity: 3, zoneId: null }]), lookup);
    expect(await cache.resolve(chronoDeck(1, [{ cardId: 'WNR01-022', quantity: 2, zoneId: null }]), lookup)).toEqual([{ cardId: 'WNR01-022', quantity: 2, zoneId: 'main' }]);
    expect(await cache.resolve(chronoDeck(1, [{ cardId: 'WNR01-001', quantity: 1, zoneId: null }]), lookup)).toEqual([{ cardId: 'WNR01-001', quantity: 1, zoneId: 'loadout' }]);
  });

  it('resolves digimon eggs stored without a zone from the catalog, keeping recognised zones', async () => {
    const cache = new ResolvedDeckCache();
    const lookup = lookupOf({ 'BT1-001': 'Digi-Egg', 'BT1-010': 'Digimon', 'BT1-002': 'Digi-Egg' });
    const digimon = {
      ...chronoDeck(1, [
        { cardId: 'BT1-010', quantity: 4, zoneId: null },
        { cardId: 'BT1-001', quantity: 4, zoneId: null },
        { cardId: 'BT1-002', quantity: 1, zoneId: 'main' },
        { cardId: 'BT9-999', quantity: 2, zoneId: 'eggs' },
      ]),
      gameId: 'digimon' as const,
    };
    expect(await cache.resolve(digimon, lookup)).toEqual([
      { cardId: 'BT1-010', quantity: 4, zoneId: 'main' },
      { cardId: 'BT1-001', quantity: 4, zoneId: 'digi-egg' },
      { cardId: 'BT1-002', quantity: 1, zoneId: 'main' }, // recognised: kept although it is an egg
      { cardId: 'BT9-999', quantity: 2, zoneId: 'main' }, // not in the catalog
    ]);
    expect(lookup.calls.sort()).toEqual(['BT1-001', 'BT1-010', 'BT9-999']);
  });

  it('never consults the catalog for gundam or grand-archive, and results cannot be mutated into the cache', async () => {
    const cache = new ResolvedDeckCache({ maxDecks: 1 });
    const lookup = vi.fn(async () => null);
    const gundam = { ...chronoDeck(1, [{ cardId: 'GD01-001', quantity: 4, zoneId: null }]), gameId: 'gundam' as const };
    expect(await cache.resolve(gundam, lookup)).toEqual([{ cardId: 'GD01-001', quantity: 4, zoneId: 'main' }]);
    const ga = { ...chronoDeck(1, [{ cardId: 'lorraine', quantity: 1, zoneId: 'commander' }]), gameId: 'grand-archive' as const };
    expect(await cache.resolve(ga, lookup)).toEqual([{ cardId: 'lorraine', quantity: 1, zoneId: 'commander' }]);
    expect(lookup).not.toHaveBeenCalled();
    const first = await cache.resolve(chronoDeck(1, cards), lookupOf({}));
    first[0]!.zoneId = 'tampered';
    expect((await cache.resolve(chronoDeck(1, cards), lookupOf({})))[0]!.zoneId).toBe('main');
    expect(cache.size).toBe(1);
  });
});

describe('catalogLookup', () => {
  it('names and pictures cards with the game model, and tolerates odd records', async () => {
    const records: Record<string, Record<string, unknown>> = {
      'BT1-010': { id: 'BT1-010', name: { english: 'Agumon' }, cardType: 'Digimon', cardImageUrl: 'https://img/BT1-010.webp' },
      'BT1-011': { id: 'BT1-011', cardType: 7 },
    };
    const lookup = catalogLookup('digimon', { cardRecord: async (id) => records[id] ?? null });
    expect(await lookup('BT1-010')).toEqual({ name: 'Agumon', imageUrl: 'https://img/BT1-010.webp', cardType: 'Digimon', card: records['BT1-010'] });
    expect(await lookup('BT1-011')).toMatchObject({ name: 'BT1-011', imageUrl: null, cardType: null });
    expect(await lookup('BT1-012')).toBeNull();
    const infos = await lookupCards(['BT1-010', 'BT1-012', 'BT1-010'], lookup);
    expect([...namesOf(infos)]).toEqual([
      ['BT1-010', 'Agumon'],
      ['BT1-012', 'BT1-012'],
    ]);
  });
});
