import { deckDetailsResponse } from '@snapdeck/contract';
import { describe, expect, it, vi } from 'vitest';
import { deckDetails } from './details.ts';
import { importDecks } from './import.ts';
import { deck, line, newId, tempDeckStorePerTest } from '../../../../test/helpers/deck-db.ts';

const t = tempDeckStorePerTest();

describe('deckDetails', () => {
  it('answers public decks once with resolved zones; everything else is unresolved in request order', async () => {
    const pub = deck({ cards: [{ cardId: 'BT1-010', quantity: 4 }] });
    const chrono = deck({ gameId: 'chrono-core', cards: [{ cardId: 'WNR01-001', quantity: 1 }, { cardId: 'WNR01-050', quantity: 2, zoneId: 'sideboard' }] });
    const priv = deck({ visibility: 'private' });
    await importDecks(t.db, [pub, chrono, priv].map(line));
    const missing = newId();
    const lookupFor = vi.fn(async () => async (id: string) => (id === 'WNR01-001' ? { name: 'Allura', imageUrl: null, cardType: 'Pilot', card: {} } : null));
    const data = await deckDetails(t.store, [priv.id, pub.id, 'garbage', chrono.id, pub.id.toUpperCase(), missing, 'garbage', pub.id], lookupFor);
    expect(data.unresolved).toEqual([priv.id, 'garbage', missing]);
    expect(data.decks).toEqual([
      { id: pub.id, gameId: 'digimon', name: pub.name, cards: [{ cardId: 'BT1-010', quantity: 4, zoneId: 'main' }] },
      { id: chrono.id, gameId: 'chrono-core', name: chrono.name, cards: [{ cardId: 'WNR01-001', quantity: 1, zoneId: 'loadout' }, { cardId: 'WNR01-050', quantity: 2, zoneId: 'sideboard' }] },
    ]);
    // Both decks have entries without a stored zone: digimon and chrono-core resolve those from the catalog.
    expect(lookupFor).toHaveBeenCalledTimes(2);
    expect(lookupFor).toHaveBeenCalledWith('digimon');
    expect(lookupFor).toHaveBeenCalledWith('chrono-core');
    expect(() => deckDetailsResponse.parse({ data })).not.toThrow();
    expect(Object.keys(data.decks[0]!).sort()).toEqual(['cards', 'gameId', 'id', 'name']);
  });

  it('takes 0 to 50 ids', async () => {
    expect(await deckDetails(t.store, [], vi.fn())).toEqual({ decks: [], unresolved: [] });
    await expect(deckDetails(t.store, Array.from({ length: 51 }, newId), vi.fn())).rejects.toThrow(RangeError);
  });
});
