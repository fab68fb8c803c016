import { LOWER_CASE_UUID_V4, type GameSlug } from '@snapdeck/contract';
import type { Db } from '../db/database.ts';
import type { StoredCardEntry, StoredDeck, Visibility } from './types.ts';

/** How decks are read from their tables (schema: migration 2 in db/migrations.ts) into StoredDecks. */

/** Deck ids are stored in lower case; anything that is not a UUID v4 names no deck. */
export function normalizeDeckId(id: string): string | null {
  const lower = id.toLowerCase();
  return LOWER_CASE_UUID_V4.test(lower) ? lower : null;
}

export interface DeckRow {
  seq: number;
  id: string;
  game_id: string;
  name: string;
  owner_display_name: string;
  visibility: string;
  created_at: number;
  updated_at: number;
  copy_count: number;
  view_count: number;
  like_count: number;
}

export interface CardRow {
  deck_seq: number;
  card_id: string;
  quantity: number;
  zone_id: string | null;
}

const DECK_COLUMNS = 'seq, id, game_id, name, owner_display_name, visibility, created_at, updated_at, copy_count, view_count, like_count';

/** The statements that read whole decks: one by id, or up to 50 with their cards in two statements, whatever the number (json_each). */
export function deckStatements(db: Db) {
  return {
    deckById: db.prepare<[string], DeckRow>(`SELECT ${DECK_COLUMNS} FROM decks WHERE id = ?`),
    cardsOfDeck: db.prepare<[number], CardRow>('SELECT deck_seq, card_id, quantity, zone_id FROM deck_cards WHERE deck_seq = ? ORDER BY position'),
    decksByIds: db.prepare<[string], DeckRow>(`SELECT ${DECK_COLUMNS} FROM decks WHERE id IN (SELECT value FROM json_each(?))`),
    cardsOfDecks: db.prepare<[string], CardRow>(
      'SELECT deck_seq, card_id, quantity, zone_id FROM deck_cards WHERE deck_seq IN (SELECT value FROM json_each(?)) ORDER BY deck_seq, position',
    ),
  };
}

export function toEntry(row: CardRow): StoredCardEntry {
  return { cardId: row.card_id, quantity: row.quantity, zoneId: row.zone_id };
}

export function toDeck(row: DeckRow, cards: StoredCardEntry[]): StoredDeck {
  return {
    id: row.id,
    gameId: row.game_id as GameSlug,
    name: row.name,
    ownerDisplayName: row.owner_display_name,
    visibility: row.visibility as Visibility,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    copyCount: row.copy_count,
    viewCount: row.view_count,
    likeCount: row.like_count,
    cards,
  };
}
