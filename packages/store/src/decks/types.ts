import type { GameSlug } from '@snapdeck/contract';

export const VISIBILITIES = ['public', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** A card entry as stored: the zone may be absent (the catalog or a default decides it when served). */
export interface StoredCardEntry {
  cardId: string;
  quantity: number;
  zoneId: string | null;
}

/** A card entry as served (interface.md §2.5): the zone is always a string. */
export interface CardEntry {
  cardId: string;
  quantity: number;
  zoneId: string;
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

/** interface.md §2.2. */
export interface DeckSummary {
  id: string;
  gameId: GameSlug;
  createdAt: string;
  updatedAt: string;
}

/** interface.md §2.3. */
export interface DeckDetail {
  id: string;
  gameId: GameSlug;
  name: string;
  cards: CardEntry[];
}

/** interface.md §2.4. */
export interface FullDeck {
  id: string;
  name: string;
  gameId: GameSlug;
  ownerDisplayName: string;
  cards: CardEntry[];
  createdAt: string;
  updatedAt: string;
}

/** Where a keyset page starts or ends: the sort value of a deck and its id (the tie-breaker). */
export interface DeckPosition {
  value: number;
  id: string;
}
