import { LRUCache } from 'lru-cache';
import type { CardLookup } from './card-lookup.ts';
import type { CardEntry } from '@snapdeck/contract';
import type { StoredDeck } from './types.ts';
import { needsCatalog, resolveZoneId } from './zones.ts';

/**
 * Served card entries of a deck, zones resolved (zones.ts). Resolution that consults the catalog
 * (chrono-core and digimon entries with an absent or unrecognised zone) is cached per deck id and updatedAt:
 * interface.md §2.5 says a cached deck keeps its zone values until its updatedAt changes, so a
 * catalog rebuild that changes a card's type does not move cards of decks already resolved, and a
 * re-import that bumps updatedAt gets a fresh resolution. Bounded by entry count (LRU).
 *
 * Only the zones are cached, with the entries they were resolved for: ids, quantities and order
 * always come from the deck as stored now, and a re-import that changed the entries without
 * bumping updatedAt is resolved afresh instead of being served someone else's zones.
 */
export class ResolvedDeckCache {
  private readonly cache: LRUCache<string, { fingerprint: string; zones: readonly string[] }>;

  constructor(options: { maxDecks?: number } = {}) {
    this.cache = new LRUCache({ max: options.maxDecks ?? 20_000 });
  }

  /**
   * The deck's entries as served, in import order. `lookup` is only called for entries that
   * need the catalog, each distinct card once.
   */
  async resolve(deck: StoredDeck, lookup: CardLookup): Promise<CardEntry[]> {
    const game = deck.gameId;
    const served = (zones: readonly string[]) => deck.cards.map((entry, i) => ({ cardId: entry.cardId, quantity: entry.quantity, zoneId: zones[i]! }));
    if (!deck.cards.some((entry) => needsCatalog(game, entry.zoneId))) {
      return served(deck.cards.map((entry) => resolveZoneId(game, entry.zoneId, null)));
    }
    const key = `${deck.id}@${deck.updatedAt}`;
    const fingerprint = deck.cards.map((entry) => `${entry.cardId}\u0000${entry.zoneId ?? ''}`).join('\u0001');
    const cached = this.cache.get(key);
    if (cached && cached.fingerprint === fingerprint) return served(cached.zones);

    const ids = new Set(deck.cards.filter((entry) => needsCatalog(game, entry.zoneId)).map((entry) => entry.cardId));
    const types = new Map<string, string | null>();
    await Promise.all(
      [...ids].map(async (id) => {
        types.set(id, (await lookup(id))?.cardType ?? null);
      }),
    );
    const zones = deck.cards.map((entry) => resolveZoneId(game, entry.zoneId, types.get(entry.cardId) ?? null));
    this.cache.set(key, { fingerprint, zones });
    return served(zones);
  }

  get size(): number {
    return this.cache.size;
  }

  clear(): void {
    this.cache.clear();
  }
}
