import type { CardInfo } from './card-lookup.ts';
import type { CardEntry } from './types.ts';

/**
 * format=ga-tts (decisions.md): a Grand Archive deck for Tabletop Simulator importers, grouped by
 * zone, each entry with its card's name, image and full catalog record. Shape: `gaTtsResponse` in
 * @snapdeck/contract (this function returns its `data`).
 */

export interface GaTtsCard {
  cardId: string;
  quantity: number;
  name: string;
  imageUrl: string | null;
  card: Record<string, unknown> | null;
}

export interface GaTtsDeck {
  id: string;
  name: string;
  /** main, material, references and sideboard always; any other zone a deck uses after them. */
  zones: { main: GaTtsCard[]; material: GaTtsCard[]; references: GaTtsCard[]; sideboard: GaTtsCard[] } & Record<string, GaTtsCard[]>;
}

/**
 * `infos` maps every card id of the deck to its catalog card or null (card-lookup.ts
 * `lookupCards`); a card missing from the catalog is named by its id, with no image and no card.
 * Entries keep import order within each zone.
 */
export function gaTts(deck: { id: string; name: string; cards: readonly CardEntry[] }, infos: ReadonlyMap<string, CardInfo | null>): GaTtsDeck {
  const zones: GaTtsDeck['zones'] = { main: [], material: [], references: [], sideboard: [] };
  for (const entry of deck.cards) {
    const info = infos.get(entry.cardId) ?? null;
    // A zone outside the four is an open-string value the deck really has: keep its cards under
    // their own key (an additive member) rather than silently dropping them.
    (zones[entry.zoneId] ??= []).push({
      cardId: entry.cardId,
      quantity: entry.quantity,
      name: info?.name ?? entry.cardId,
      imageUrl: info?.imageUrl ?? null,
      card: info?.card ?? null,
    });
  }
  return { id: deck.id, name: deck.name, zones };
}
