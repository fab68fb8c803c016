import { describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { deckDetails, deckDetailsJson } from './details.ts';
import { importDecks } from './import.ts';
import { ResolvedDeckCache } from './resolved-cache.ts';
import type { StoredDeck } from './types.ts';
import { deck, line, newId, tempDeckStorePerTest } from '../../../../test/helpers/deck-db.ts';

const t = tempDeckStorePerTest();

describe('DeckStore keeps the decks it read until the database changes', () => {
  it('hands out the same deck object while nothing changed, a deck not found included', async () => {
    const d = deck({ cards: [{ cardId: 'BT1-010', quantity: 4, zoneId: 'main' }] });
    await importDecks(t.db, [line(d)]);
    const first = t.store.getDeck(d.id)!;
    expect(t.store.getDeck(d.id.toUpperCase())).toBe(first);
    expect(t.store.getPublicDecks([d.id])).toEqual([first]);
    expect(t.store.getPublicDecks([d.id])[0]).toBe(first);
    const missing = newId();
    expect(t.store.getDeck(missing)).toBeNull();
    expect(t.store.getDeck(missing)).toBeNull();
  });

  it('reads again after a write through its own connection (an import in the same process)', async () => {
    const d = deck({ name: 'Before', cards: [{ cardId: 'BT1-010', quantity: 4 }] });
    const later = deck();
    await importDecks(t.db, [line(d)]);
    expect(t.store.getDeck(d.id)!.name).toBe('Before');
    expect(t.store.getDeck(later.id)).toBeNull();
    await importDecks(t.db, [line({ ...d, name: 'After', cards: [{ cardId: 'BT1-011', quantity: 1 }] }), line(later)]);
    expect(t.store.getDeck(d.id)).toMatchObject({ name: 'After', cards: [{ cardId: 'BT1-011', quantity: 1, zoneId: null }] });
    expect(t.store.getDeck(later.id)?.id).toBe(later.id);
  });

  it('reads again after another connection commits (`decks import` on the writer database)', async () => {
    const d = deck({ name: 'Before' });
    await importDecks(t.db, [line(d)]);
    expect(t.store.getPublicDecks([d.id]).map((x) => x.name)).toEqual(['Before']);
    const writer = openDatabase(t.file);
    try {
      await importDecks(writer, [line({ ...d, name: 'Renamed', visibility: 'private' })]);
      expect(t.store.getDeck(d.id)).toMatchObject({ name: 'Renamed', visibility: 'private' });
      expect(t.store.getPublicDecks([d.id])).toEqual([]);
      await importDecks(writer, [line({ ...d, visibility: 'public' }), line({ id: newId(), deleted: true })]);
      expect(t.store.getPublicDecks([d.id]).map((x) => x.name)).toEqual(['Before']);
      await importDecks(writer, [line({ id: d.id, deleted: true })]);
      expect(t.store.getDeck(d.id)).toBeNull();
    } finally {
      writer.close();
    }
  });
});

describe('deckDetailsJson', () => {
  it('is JSON.stringify of deckDetails, byte for byte, and makes each deck part once per deck object', async () => {
    const pub = deck({ name: 'Quote " and \\ and é', cards: [{ cardId: 'BT1-010', quantity: 4 }, { cardId: 'BT1-001', quantity: 2, zoneId: 'digi-egg' }] });
    const chrono = deck({ gameId: 'chrono-core', cards: [{ cardId: 'WNR01-001', quantity: 1 }, { cardId: 'WNR01-050', quantity: 2, zoneId: 'sideboard' }] });
    const priv = deck({ visibility: 'private' });
    await importDecks(t.db, [pub, chrono, priv].map(line));
    const ids = [priv.id, pub.id, 'garbage', chrono.id, pub.id.toUpperCase(), newId(), 'garbage', pub.id];
    const lookupFor = vi.fn(async () => async (id: string) => (id === 'WNR01-001' ? { name: 'Allura', imageUrl: null, cardType: 'Pilot', card: {} } : null));
    const expected = JSON.stringify(await deckDetails(t.store, new ResolvedDeckCache(), ids, lookupFor));
    const rendered = new WeakMap<StoredDeck, Buffer>();
    const resolved = new ResolvedDeckCache();
    const resolve = vi.spyOn(resolved, 'resolve');
    expect((await deckDetailsJson(t.store, resolved, rendered, ids, lookupFor)).toString()).toBe(expected);
    expect((await deckDetailsJson(t.store, resolved, rendered, ids, lookupFor)).toString()).toBe(expected);
    expect(resolve).toHaveBeenCalledTimes(2); // two public decks, made once
    expect((await deckDetailsJson(t.store, resolved, rendered, [], lookupFor)).toString()).toBe(JSON.stringify({ decks: [], unresolved: [] }));

    // A changed deck is a new object: its part is made again from what is stored now.
    await importDecks(t.db, [line({ ...pub, name: 'New name' })]);
    const changed = JSON.parse((await deckDetailsJson(t.store, resolved, rendered, [pub.id], lookupFor)).toString()) as { decks: { name: string }[] };
    expect(changed.decks.map((d) => d.name)).toEqual(['New name']);
  });
});
