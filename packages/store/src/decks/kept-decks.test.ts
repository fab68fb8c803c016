import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { deckDetails } from './details.ts';
import { importDecks } from './import.ts';
import { DeckStore } from './store.ts';
import { toFullDeck } from './views.ts';
import { ResolvedDeckCache } from './resolved-cache.ts';
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

describe('what DeckStore makes of a kept deck', () => {
  const allura = async () => async (id: string) => (id === 'WNR01-001' ? { name: 'Allura', imageUrl: null, cardType: 'Pilot', card: {} } : null);

  it('detailsJson is {"data": JSON.stringify of deckDetails}, byte for byte, each deck part made once while the deck is kept', async () => {
    const pub = deck({ name: 'Quote " and \\ and é', cards: [{ cardId: 'BT1-010', quantity: 4 }, { cardId: 'BT1-001', quantity: 2, zoneId: 'digi-egg' }] });
    const chrono = deck({ gameId: 'chrono-core', cards: [{ cardId: 'WNR01-001', quantity: 1 }, { cardId: 'WNR01-050', quantity: 2, zoneId: 'sideboard' }] });
    const priv = deck({ visibility: 'private' });
    await importDecks(t.db, [pub, chrono, priv].map(line));
    const ids = [priv.id, pub.id, 'garbage', chrono.id, pub.id.toUpperCase(), newId(), 'garbage', pub.id];
    const catalog = vi.fn(allura);
    const expected = JSON.stringify({ data: await deckDetails(t.store, ids, catalog) });
    const zones = new ResolvedDeckCache();
    const resolve = vi.spyOn(zones, 'resolve');
    const store = new DeckStore(t.db, { zones });
    expect((await store.detailsJson(ids, catalog)).toString()).toBe(expected);
    expect((await store.detailsJson(ids, catalog)).toString()).toBe(expected);
    expect(resolve).toHaveBeenCalledTimes(2); // two public decks, made once
    expect((await store.detailsJson([], catalog)).toString()).toBe(JSON.stringify({ data: { decks: [], unresolved: [] } }));
    const kept = store.detailsJson([pub.id, chrono.id], catalog);
    expect(kept).toBeInstanceOf(Buffer); // every part kept: the bytes at once, no Promise
  });

  it('jsonBody is the format=json body, made once while the deck is kept, at once when kept', async () => {
    const d = deck({ gameId: 'chrono-core', cards: [{ cardId: 'WNR01-001', quantity: 1 }] });
    await importDecks(t.db, [line(d)]);
    const stored = t.store.getDeck(d.id)!;
    const first = await t.store.jsonBody(stored, vi.fn(allura));
    expect(JSON.parse(Buffer.from(first.bytes).toString())).toEqual({ data: toFullDeck(stored, [{ cardId: 'WNR01-001', quantity: 1, zoneId: 'loadout' }]) });
    const catalog = vi.fn(allura);
    expect(t.store.jsonBody(t.store.getDeck(d.id)!, catalog)).toBe(first);
    expect(catalog).not.toHaveBeenCalled();
  });

  it('a json body and a details part change after an import that changes the deck, through this connection or another', async () => {
    const d = deck({ name: 'Before', cards: [{ cardId: 'BT1-010', quantity: 4 }] });
    await importDecks(t.db, [line(d)]);
    const catalog = vi.fn(allura);
    const body = async () => JSON.parse(Buffer.from((await t.store.jsonBody(t.store.getDeck(d.id)!, catalog)).bytes).toString()).data;
    const part = async () => JSON.parse((await t.store.detailsJson([d.id], catalog)).toString()).data.decks;
    expect(await body()).toMatchObject({ name: 'Before', cards: [{ cardId: 'BT1-010', quantity: 4 }] });
    expect(await part()).toMatchObject([{ name: 'Before' }]);

    // Same updatedAt, another name and other cards: a changed deck all the same.
    await importDecks(t.db, [line({ ...d, name: 'After', cards: [{ cardId: 'BT1-011', quantity: 1 }] })]);
    expect(await body()).toMatchObject({ name: 'After', cards: [{ cardId: 'BT1-011', quantity: 1 }] });
    expect(await part()).toMatchObject([{ name: 'After', cards: [{ cardId: 'BT1-011', quantity: 1 }] }]);

    const writer = openDatabase(t.file);
    try {
      await importDecks(writer, [line({ ...d, name: 'Written elsewhere' })]);
      expect(await body()).toMatchObject({ name: 'Written elsewhere' });
      expect(await part()).toMatchObject([{ name: 'Written elsewhere' }]);
      await importDecks(writer, [line({ ...d, visibility: 'private' })]);
      expect(await part()).toEqual([]);
    } finally {
      writer.close();
    }
  });
});

describe("the listing's updatedSince counts follow the same check", () => {
  it('a count reused across the pages of a walk is counted again after an import, through this connection or another, in WAL mode or not', async () => {
    const day = (d: number) => new Date(Date.UTC(2026, 0, d)).toISOString();
    const deckOn = (d: number) => deck({ createdAt: day(1), updatedAt: day(d) });
    const since = Date.UTC(2026, 0, 5);
    // One deck before the filter, so the count is a COUNT over the range rather than the counter's.
    await importDecks(t.db, [line(deckOn(1)), line(deckOn(10))]);
    for (const journal of ['wal', 'delete'] as const) {
      t.db.pragma(`journal_mode = ${journal}`);
      const store = new DeckStore(t.db);
      const before = store.totalCount('digimon', since);
      expect(store.totalCount('digimon', since)).toBe(before);
      await importDecks(t.db, [line(deckOn(11))]);
      expect(store.totalCount('digimon', since)).toBe(before + 1);
      // Another connection, without openDatabase (which would set WAL mode again).
      const writer = new Database(t.file);
      try {
        writer.pragma('busy_timeout = 5000');
        await importDecks(writer, [line(deckOn(12)), line(deckOn(2))]);
        expect(store.totalCount('digimon', since)).toBe(before + 2);
      } finally {
        writer.close();
      }
    }
  });
});
