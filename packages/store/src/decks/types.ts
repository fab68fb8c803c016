import type { GameSlug } from '@snapdeck/contract';

/**
 * The deck layer's own shapes: a deck as stored and a position in a listing. The shapes it serves
 * (CardEntry, DeckSummary, DeckDetail, Deck, …) are the contract's, inferred from its schemas.
 */

export const VISIBILITIES = ['public', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** A card entry as stored: the zone may be absent (the catalog or a default decides it when served). */
export interface StoredCardEntry {
  cardId: string;
  quantity: number;
  zoneId: string | null;
}

/** Everything stored about a deck; timestamps are epoch milliseconds (UTC). */
export interface StoredDeck {
  id: string;
  gameId: GameSlug;
  name: string;
  ownerDisplayName: string;
  visibility: Visibility;
  createdAt: number;
  updatedAt: number;
  copyCount: number;
  viewCount: number;
  likeCount: number;
  /** In import order. */
  cards: StoredCardEntry[];
}

/** Where a keyset page starts or ends: the sort value of a deck and its id (the tie-breaker). */
export interface DeckPosition {
  value: number;
  id: string;
}
