import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DeckImportError, importDecks } from './import.ts';
import { importDecksFromFile } from './import-file.ts';
import { parseDeckLine } from './import-line.ts';
import { deck, dumpDeckTables, line, newId, tempDeckStorePerTest } from '../../../../test/helpers/deck-db.ts';

const t = tempDeckStorePerTest();

async function importError(lines: string[]): Promise<DeckImportError> {
  const error = await importDecks(t.db, lines).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DeckImportError);
  return error as DeckImportError;
}

describe('all or nothing', () => {
  it('rejects the whole file on one bad line, naming it, and changes nothing', async () => {
    const kept = deck({ name: 'Already here' });
    await importDecks(t.db, [line(kept)]);
    t.store.createPrivateLink(kept.id);
    const before = dumpDeckTables(t.db);

    const lines = [
      line(deck()),
      line({ ...kept, name: 'Renamed', cards: [] }),
      '',
      line({ id: kept.id, deleted: true }),
      line(deck({ cards: [{ cardId: 'BT1-001', quantity: 0 }] })),
      line(deck()),
    ];
    const error = await importError(lines);
    expect(error.line).toBe(5);
    expect(error.reason).toBe('cards[0].quantity: must be at least 1');
    expect(error.message).toBe('line 5: cards[0].quantity: must be at least 1');
    expect(dumpDeckTables(t.db)).toEqual(before);
    expect(t.db.inTransaction).toBe(false);
  });

  it('rolls back a failure in bulk mode too, with the listing indexes back in place', async () => {
    await importDecks(t.db, [line(deck())]);
    const before = dumpDeckTables(t.db);
    const lines = Array.from({ length: 2500 }, () => line(deck()));
    lines.push('{not json');
    const error = await importDecks(t.db, lines, { bulkMinDecks: 10 }).catch((e: unknown) => e);
    expect((error as DeckImportError).line).toBe(2501);
    expect(dumpDeckTables(t.db)).toEqual(before);
  });

  it('rebuilds the listing indexes after a bulk import', async () => {
    const before = (dumpDeckTables(t.db) as { indexes: unknown }).indexes;
    const decks = Array.from({ length: 2100 }, (_, i) => deck({ copyCount: i % 7 }));
    const result = await importDecks(t.db, decks.map(line), { bulkMinDecks: 10 });
    expect(result.upserted).toBe(2100);
    expect((dumpDeckTables(t.db) as { indexes: unknown }).indexes).toEqual(before);
    expect(t.store.listPublic({ game: 'digimon', sort: 'copyCount', limit: 3 }).totalCount).toBe(2100);
    expect(t.db.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
  });

  it('reports a file that cannot be read without changing anything', async () => {
    await expect(importDecksFromFile(t.db, join(t.dir, 'missing.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(t.db.inTransaction).toBe(false);
  });
});

describe('validation', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['id not a uuid', { id: 'deck-1' }, 'id: must be a UUID v4'],
    ['id a uuid v1', { id: 'a0eebc99-9c0b-11d1-b5a7-0242ac120002' }, 'id: must be a UUID v4'],
    ['unknown game', { gameId: 'pokemon' }, 'gameId: must be one of digimon, gundam, grand-archive, chrono-core'],
    ['internal game', { gameId: 'chrono-core-playtest' }, 'gameId: must be one of'],
    ['empty name', { name: '' }, 'name: must not be empty'],
    ['long name', { name: 'x'.repeat(201) }, 'name: must be at most 200 characters'],
    ['name not a string', { name: 5 }, 'name: Invalid input'],
    ['missing owner', { ownerDisplayName: undefined }, 'ownerDisplayName: Invalid input'],
    ['visibility', { visibility: 'unlisted' }, 'visibility: must be public or private'],
    ['timestamp without zone', { createdAt: '2026-01-05T10:00:00' }, 'createdAt: must be an ISO 8601 date-time'],
    ['date only', { updatedAt: '2026-01-06' }, 'updatedAt: must be an ISO 8601 date-time'],
    ['impossible date', { createdAt: '2026-02-30T00:00:00Z' }, 'createdAt: must be an ISO 8601 date-time'],
    ['timestamp a number', { createdAt: 1767225600000 }, 'createdAt: Invalid input'],
    ['updated before created', { createdAt: '2026-01-06T00:00:00Z', updatedAt: '2026-01-05T00:00:00Z' }, 'updatedAt: must not be earlier than createdAt'],
    ['negative counter', { likeCount: -1 }, 'likeCount: must not be negative'],
    ['fractional counter', { viewCount: 1.5 }, 'viewCount: must be an integer'],
    ['counter a string', { copyCount: '3' }, 'copyCount: Invalid input'],
    ['cards missing', { cards: undefined }, 'cards: Invalid input'],
    ['cards not an array', { cards: {} }, 'cards: Invalid input'],
    ['quantity zero', { cards: [{ cardId: 'BT1-001', quantity: 0 }] }, 'cards[0].quantity: must be at least 1'],
    ['quantity fractional', { cards: [{ cardId: 'BT1-001', quantity: 2.5 }] }, 'cards[0].quantity: must be an integer'],
    ['quantity huge', { cards: [{ cardId: 'BT1-001', quantity: 1000 }] }, 'cards[0].quantity: must be at most 999'],
    ['cardId empty', { cards: [{ cardId: '', quantity: 1 }] }, 'cards[0].cardId: must match'],
    ['cardId with a space', { cards: [{ cardId: 'BT1 001', quantity: 1 }] }, 'cards[0].cardId: must match'],
    ['cardId too long', { cards: [{ cardId: 'a'.repeat(101), quantity: 1 }] }, 'cards[0].cardId: must match'],
    ['zoneId empty', { cards: [{ cardId: 'BT1-001', quantity: 1, zoneId: '' }] }, 'cards[0].zoneId: must be a lowercase'],
    ['zoneId with a newline', { cards: [{ cardId: 'BT1-001', quantity: 1, zoneId: 'main\n// Evil' }] }, 'cards[0].zoneId: must be a lowercase'],
    ['entry with an unknown member', { cards: [{ cardId: 'BT1-001', quantity: 1, zone: 'main' }] }, 'cards[0]: Unrecognized key: "zone"'],
    ['unknown member', { copycount: 3 }, 'Unrecognized key: "copycount"'],
  ];

  it.each(cases)('rejects %s', async (_label, overrides, reason) => {
    const error = await importError([line(deck()), line(deck(overrides as never))]);
    expect(error.line).toBe(2);
    expect(error.reason).toContain(reason);
  });

  it.each([
    ['not JSON', '{"id": ', 'not valid JSON'],
    ['an array', '[1, 2]', 'must be a JSON object'],
    ['a string', '"deck"', 'must be a JSON object'],
    ['a delete with deleted false', JSON.stringify({ id: newId(), deleted: false }), 'deleted: must be true'],
    ['a delete with extra members', JSON.stringify({ id: newId(), deleted: true, name: 'x' }), 'Unrecognized key: "name"'],
    ['a delete with a bad id', JSON.stringify({ id: 'x', deleted: true }), 'id: must be a UUID v4'],
  ])('rejects a line that is %s', async (_label, text, reason) => {
    const error = await importError([text]);
    expect(error.line).toBe(1);
    expect(error.reason).toContain(reason);
  });

  it('lists at most three problems of a line', () => {
    expect(() => parseDeckLine('{}')).toThrow(/; and \d+ more$/);
  });

  it('accepts the optional and lenient forms', async () => {
    const d = deck({
      id: newId().toUpperCase(),
      copyCount: undefined,
      viewCount: undefined,
      likeCount: undefined,
      createdAt: '2026-01-05T11:00:00+01:00',
      updatedAt: '2026-01-05T10:00:00.123456Z',
      cards: [
        { cardId: 'BT1-001', quantity: 1 },
        { cardId: 'BT1-002', quantity: 2, zoneId: null },
        { cardId: 'BT1-003', quantity: 3, zoneId: 'extra-deck' },
      ],
    });
    const result = await importDecks(t.db, ['', line(d), '   ']);
    expect(result).toMatchObject({ upserted: 1, deleted: 0, notFound: 0, lines: 3 });
    const stored = t.store.getDeck(d.id)!;
    expect(stored.id).toBe(d.id.toLowerCase());
    expect(stored).toMatchObject({ copyCount: 0, viewCount: 0, likeCount: 0 });
    expect(stored.createdAt).toBe(Date.parse('2026-01-05T10:00:00.000Z'));
    expect(stored.updatedAt).toBe(Date.parse('2026-01-05T10:00:00.123Z'));
    expect(stored.cards).toEqual([
      { cardId: 'BT1-001', quantity: 1, zoneId: null },
      { cardId: 'BT1-002', quantity: 2, zoneId: null },
      { cardId: 'BT1-003', quantity: 3, zoneId: 'extra-deck' },
    ]);
  });

  it('accepts a deck without cards', async () => {
    const d = deck({ cards: [] });
    await importDecks(t.db, [line(d)]);
    expect(t.store.getDeck(d.id)!.cards).toEqual([]);
  });
});

describe('upsert and delete', () => {
  it('replaces every field and the entries of an existing deck, keeping its tokens', async () => {
    const d = deck({ cards: Array.from({ length: 5 }, (_, i) => ({ cardId: `BT1-00${i}`, quantity: 1, zoneId: 'main' })) });
    await importDecks(t.db, [line(d)]);
    const link = t.store.createPrivateLink(d.id)!;
    const updated = deck({
      id: d.id,
      gameId: 'gundam',
      name: 'Zeon Rush',
      ownerDisplayName: 'char',
      visibility: 'private',
      createdAt: '2026-02-01T00:00:00.000Z',
      updatedAt: '2026-02-02T00:00:00.000Z',
      copyCount: 7,
      viewCount: 70,
      likeCount: 17,
      cards: [
        { cardId: 'GD01-039', quantity: 4 },
        { cardId: 'R-001', quantity: 10, zoneId: 'resource' },
      ],
    });
    const result = await importDecks(t.db, [line(updated)]);
    expect(result.upserted).toBe(1);
    expect(t.store.getDeck(d.id)).toEqual({
      id: d.id,
      gameId: 'gundam',
      name: 'Zeon Rush',
      ownerDisplayName: 'char',
      visibility: 'private',
      createdAt: Date.parse('2026-02-01T00:00:00.000Z'),
      updatedAt: Date.parse('2026-02-02T00:00:00.000Z'),
      copyCount: 7,
      viewCount: 70,
      likeCount: 17,
      cards: [
        { cardId: 'GD01-039', quantity: 4, zoneId: null },
        { cardId: 'R-001', quantity: 10, zoneId: 'resource' },
      ],
    });
    expect(t.db.prepare('SELECT COUNT(*) FROM deck_cards').pluck().get()).toBe(2);
    expect(t.store.resolveToken(d.id, link)).toBe(true);
  });

  it('keeps entries in import order, duplicates included', async () => {
    const cards = [
      { cardId: 'WNR01-022', quantity: 2, zoneId: 'main' },
      { cardId: 'WNR01-001', quantity: 1, zoneId: 'loadout' },
      { cardId: 'WNR01-022', quantity: 1, zoneId: 'sideboard' },
      ...Array.from({ length: 150 }, (_, i) => ({ cardId: `WNR01-${String(i + 100).padStart(3, '0')}`, quantity: 1, zoneId: 'main' })),
    ];
    const d = deck({ gameId: 'chrono-core', cards });
    await importDecks(t.db, [line(d)]);
    expect(t.store.getDeck(d.id)!.cards).toEqual(cards);
  });

  it('applies lines in order: the later line for an id wins, a delete then a re-add re-creates', async () => {
    const a = deck({ name: 'first' });
    const b = deck();
    const result = await importDecks(t.db, [
      line(a),
      line({ ...a, name: 'second', cards: [{ cardId: 'BT2-001', quantity: 2 }] }),
      line(b),
      line({ id: b.id, deleted: true }),
      line({ ...b, name: 'back' }),
    ]);
    expect(result).toMatchObject({ upserted: 4, deleted: 1, notFound: 0 });
    expect(t.store.getDeck(a.id)).toMatchObject({ name: 'second', cards: [{ cardId: 'BT2-001', quantity: 2, zoneId: null }] });
    expect(t.store.getDeck(b.id)).toMatchObject({ name: 'back', cards: b.cards });
    expect(t.db.prepare('SELECT COUNT(*) FROM deck_cards').pluck().get()).toBe(1 + b.cards.length);
  });

  it('deletes a deck with its entries and tokens; an unknown id is counted, not an error', async () => {
    const d = deck();
    const other = deck();
    await importDecks(t.db, [line(d), line(other)]);
    const share = t.store.createShareToken(d.id)!;
    t.store.createPrivateLink(d.id);
    t.store.createPrivateLink(other.id);
    const result = await importDecks(t.db, [line({ id: d.id.toUpperCase(), deleted: true }), line({ id: newId(), deleted: true })]);
    expect(result).toMatchObject({ upserted: 0, deleted: 1, notFound: 1 });
    expect(t.store.getDeck(d.id)).toBeNull();
    expect(t.store.resolveToken(d.id, share)).toBe(false);
    expect(t.db.prepare('SELECT COUNT(*) FROM deck_cards').pluck().get()).toBe(other.cards.length);
    expect(t.db.prepare('SELECT COUNT(*) FROM deck_tokens').pluck().get()).toBe(1);
  });

  it('keeps the per-game public counter exact through inserts, visibility and game changes, deletes', async () => {
    const counts = () => Object.fromEntries((t.db.prepare('SELECT game_id, count FROM deck_public_counts').all() as { game_id: string; count: number }[]).map((r) => [r.game_id, r.count]));
    const a = deck();
    const b = deck({ visibility: 'private' });
    const c = deck({ gameId: 'gundam', cards: [] });
    await importDecks(t.db, [line(a), line(b), line(c)]);
    expect(counts()).toEqual({ digimon: 1, gundam: 1 });
    await importDecks(t.db, [line({ ...b, visibility: 'public' }), line({ ...a, visibility: 'private' }), line({ ...c, gameId: 'digimon' })]);
    expect(counts()).toEqual({ digimon: 2, gundam: 0 });
    await importDecks(t.db, [line({ id: b.id, deleted: true }), line({ id: a.id, deleted: true })]);
    expect(counts()).toEqual({ digimon: 1, gundam: 0 });
    const actual = t.db.prepare("SELECT COUNT(*) FROM decks WHERE visibility = 'public' AND game_id = 'digimon'").pluck().get();
    expect(actual).toBe(1);
  });

  it('reads a file with CRLF line endings and blank lines', async () => {
    const a = deck();
    const b = deck({ gameId: 'grand-archive', cards: [{ cardId: 'lorraine-wandering-warrior', quantity: 1, zoneId: 'material' }] });
    const file = join(t.dir, 'decks.jsonl');
    writeFileSync(file, `${line(a)}\r\n\r\n${line(b)}\r\n`);
    const result = await importDecksFromFile(t.db, file);
    expect(result).toMatchObject({ upserted: 2, lines: 3 });
    expect(t.store.getDeck(b.id)!.gameId).toBe('grand-archive');
  });

  it('names the line in a file', async () => {
    const file = join(t.dir, 'decks.jsonl');
    writeFileSync(file, `${line(deck())}\n${line(deck())}\n${line(deck({ visibility: 'hidden' }))}\n`);
    await expect(importDecksFromFile(t.db, file)).rejects.toMatchObject({ line: 3, reason: 'visibility: must be public or private' });
    expect(t.db.prepare('SELECT COUNT(*) FROM decks').pluck().get()).toBe(0);
  });
});
