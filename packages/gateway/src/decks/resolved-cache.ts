import { LRUCache } from 'lru-cache';
import type { CardLookup } from './card-lookup.ts';
import type { CardEntry, StoredDeck } from './types.ts';
import { needsCatalog, resolveZoneId } from './zones.ts';

/**
 * Served card entries of a deck, zones resolved (zones.ts). Resolution that consults the catalog
 * (chrono-core entries with an absent or unrecognised zone) is cached per deck id and updatedAt:
 * interface.md §2.5 says a cached deck keeps its zone values until its updatedAt changes, so a
 * catalog rebuild that changes a card's type does not move cards of decks already resolved, and a
 * re-import that bumps updatedAt gets a fresh resolution. Bounded by entry count (LRU).
 */
export class ResolvedDeckCache {
  private readonly cache: LRUCache<string, readonly CardEntry[]>;

  constructor(options: { maxDecks?: number } = {}) {
    this.cache = new LRUCache({ max: options.maxDecks ?? 20_000 });
  }

  /**
   * The deck's entries as served, in import order. `lookup` is only called for entries that
   * need the catalog, each distinct card once.
   */
  async resolve(deck: StoredDeck, lookup: CardLookup): Promise<CardEntry[]> {
    const game = deck.gameId;
    if (!deck.cards.some((entry) => needsCatalog(game, entry.zoneId))) {
      return deck.cards.map((entry) => ({ cardId: entry.cardId, quantity: entry.quantity, zoneId: resolveZoneId(game, entry.zoneId, null) }));
    }
    const key = `${deck.id}@${deck.updatedAt}`;
    const cached = this.cache.get(key);
    if (cached) return cached.map((entry) => ({ ...entry }));

    const ids = new Set(deck.cards.filter((entry) => needsCatalog(game, entry.zoneId)).map((entry) => entry.cardId));
    const types = new Map<string, string | null>();
    await Promise.all(
      [...ids].map(async (id) => {
        types.set(id, (await lookup(id))?.cardType ?? null);
      }),
    );
    const resolved = deck.cards.map((entry) => ({
      cardId: entry.cardId,
      quantity: entry.quantity,
      zoneId: resolveZoneId(game, entry.zoneId, types.get(entry.cardId) ?? null),
    }));
    this.cache.set(key, resolved);
    return resolved.map((entry) => ({ ...entry }));
  }

  get size(): number {
    return this.cache.size;
  }

  clear(): void {
    this.cache.clear();
  }
}
