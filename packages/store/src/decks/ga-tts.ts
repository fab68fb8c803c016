import { GAME_ZONES, type CardEntry, type GaTtsCard, type GaTtsDeck as GaTtsData } from '@snapdeck/contract';
import type { CardInfo } from './card-lookup.ts';

/**
 * format=ga-tts (decisions.md): a Grand Archive deck for Tabletop Simulator importers, grouped by
 * zone, each entry with its card's name, image and full catalog record. Shape: `gaTtsResponse` in
 * @snapdeck/contract (this function returns its `data`).
 */

/**
 * The response's data: every Grand Archive zone, and any other zone a deck uses after them (an
 * additive member: the deck really has those cards).
 */
export type GaTtsDeck = GaTtsData & { zones: Record<string, GaTtsCard[]> };

/**
 * `infos` maps every card id of the deck to its catalog card or null (card-lookup.ts
 * `lookupCards`); a card missing from the catalog is named by its id, with no image and no card.
 * Entries keep import order within each zone.
 */
export function gaTts(deck: { id: string; name: string; cards: readonly CardEntry[] }, infos: ReadonlyMap<string, CardInfo | null>): GaTtsDeck {
  // Grouped in a Map: a zone id is untrusted text, and on a plain object `constructor` or
  // `__proto__` would find what the object inherits. Object.fromEntries then defines each zone as
  // an own member, whatever its name.
  const zones = new Map<string, GaTtsCard[]>(GAME_ZONES['grand-archive'].map((zone) => [zone, []]));
  for (const entry of deck.cards) {
    const info = infos.get(entry.cardId) ?? null;
    // A zone outside the four is an open-string value the deck really has: keep its cards under
    // their own key (an additive member) rather than silently dropping them.
    let cards = zones.get(entry.zoneId);
    if (!cards) zones.set(entry.zoneId, (cards = []));
    cards.push({
      cardId: entry.cardId,
      quantity: entry.quantity,
      name: info?.name ?? entry.cardId,
      imageUrl: info?.imageUrl ?? null,
      card: info?.card ?? null,
    });
  }
  return { id: deck.id, name: deck.name, zones: Object.fromEntries(zones) as GaTtsDeck['zones'] };
}
