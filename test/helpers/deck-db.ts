/**
 * Helpers for the deck layer's tests (imported by *.test.ts only): a real SQLite file in a
 * temporary folder, and import lines with sensible defaults.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Db } from '@snapdeck/store';
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
