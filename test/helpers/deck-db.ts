/**
 * Helpers for the deck layer's tests (imported by *.test.ts only): a real SQLite file in a
 * temporary folder, import lines with sensible defaults, and stored decks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { DeckStore, openDatabase, type Db, type DeckStoreOptions, type StoredDeck } from '@snapdeck/store';
import { prng, uuidFrom } from '../../scripts/lib/deck-generator.ts';

export interface TempDb {
  db: Db;
  dir: string;
  file: string;
  close(): void;
}

export function tempDb(): TempDb {
  const dir = mkdtempSync(join(tmpdir(), 'snapdeck-decks-'));
  const file = join(dir, 'snapdeck.db');
  const db = openDatabase(file);
  return {
    db,
    dir,
    file,
    close() {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TempDeckStore extends TempDb {
  store: DeckStore;
}

/**
 * A fresh database and DeckStore for every test of the calling file (registers beforeEach and
 * afterEach). The members of the returned object are replaced before each test: read them inside
 * the tests, not when the file loads.
 */
export function tempDeckStorePerTest(options: DeckStoreOptions = {}): TempDeckStore {
  const current = {} as TempDeckStore;
  beforeEach(() => {
    const t = tempDb();
    Object.assign(current, t, { store: new DeckStore(t.db, options) });
  });
  afterEach(() => current.close());
  return current;
}

const ids = prng(42);
/** A fresh UUID v4 (deterministic across runs, distinct within one). */
export function newId(): string {
  return uuidFrom(ids);
}

export interface LineDeck {
  id: string;
  gameId: string;
  name: string;
  ownerDisplayName: string;
  visibility: string;
  createdAt: string;
  updatedAt: string;
  copyCount?: number;
  viewCount?: number;
  likeCount?: number;
  cards: { cardId: string; quantity: number; zoneId?: string | null }[];
  [extra: string]: unknown;
}

/** A valid deck for an import line; override any member (undefined removes it). */
export function deck(overrides: Partial<LineDeck> = {}): LineDeck {
  const base: LineDeck = {
    id: newId(),
    gameId: 'digimon',
    name: 'Red Hybrid',
    ownerDisplayName: 'kaito',
    visibility: 'public',
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-06T08:30:00.000Z',
    copyCount: 1,
    viewCount: 10,
    likeCount: 2,
    cards: [
      { cardId: 'BT1-001', quantity: 4, zoneId: 'digi-egg' },
      { cardId: 'BT1-010', quantity: 4, zoneId: 'main' },
    ],
  };
  const merged: Record<string, unknown> = { ...base, ...overrides };
  for (const key of Object.keys(merged)) if (merged[key] === undefined) delete merged[key];
  return merged as LineDeck;
}

export const line = (value: unknown): string => JSON.stringify(value);

/** Every row of the deck tables, for "nothing changed" assertions. */
export function dumpDeckTables(db: Db): unknown {
  return {
    decks: db.prepare('SELECT * FROM decks ORDER BY seq').all(),
    cards: db.prepare('SELECT * FROM deck_cards ORDER BY deck_seq, position').all(),
    tokens: db.prepare('SELECT * FROM deck_tokens ORDER BY token_hash').all(),
    counts: db.prepare('SELECT * FROM deck_public_counts ORDER BY game_id').all(),
    indexes: db.prepare("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'decks' ORDER BY name").all(),
  };
}

/** A deck as the store returns it: a public chrono-core deck with no entries; override any member. */
export function storedDeck(overrides: Partial<StoredDeck> = {}): StoredDeck {
  return {
    id: '3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b',
    gameId: 'chrono-core',
    name: 'Basilisk',
    ownerDisplayName: 'x',
    visibility: 'public',
    createdAt: 0,
    updatedAt: 0,
    copyCount: 0,
    viewCount: 0,
    likeCount: 0,
    cards: [],
    ...overrides,
  };
}
