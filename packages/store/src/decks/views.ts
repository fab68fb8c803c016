import type { CardEntry, Deck, DeckDetail } from '@snapdeck/contract';
import { toIso } from './timestamps.ts';
import type { StoredDeck } from './types.ts';

/**
 * The served shapes of a deck (interface.md §2.2–2.4). Each lists exactly its documented fields:
 * a summary never leaks a name, a detail never leaks the owner or timestamps.
 */
export function toDetail(deck: StoredDeck, cards: CardEntry[]): DeckDetail {
  return { id: deck.id, gameId: deck.gameId, name: deck.name, cards };
}

export function toFullDeck(deck: StoredDeck, cards: CardEntry[]): Deck {
  return {
    id: deck.id,
    name: deck.name,
    gameId: deck.gameId,
    ownerDisplayName: deck.ownerDisplayName,
    cards,
    createdAt: toIso(deck.createdAt),
    updatedAt: toIso(deck.updatedAt),
  };
}
