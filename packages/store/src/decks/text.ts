import { ZONE, findGame, singleLine, type CardEntry, type GameSlug } from '@snapdeck/contract';
import { zoneLabel } from './zones.ts';

/**
 * Plain-text deck exports (decisions.md "Decks"). Pure functions over a deck whose zones are
 * already resolved and a card-name map (card-lookup.ts `namesOf`); a card the map does not know
 * is printed with its id as its name. Every export ends with a newline, as the real exports do;
 * a deck without cards exports as the empty string.
 *
 * No line break that came from data is ever written: names, card ids and zone labels are printed
 * through `singleLine`, which replaces control characters. The build and the import refuse them
 * already; this holds for data that reached a database or snapshot some other way.
 */

export interface TextDeck {
  gameId: GameSlug;
  /** In import order; kept within each zone group. */
  cards: readonly CardEntry[];
}

export type CardNames = ReadonlyMap<string, string>;

export interface ZoneGroup {
  zoneId: string;
  cards: CardEntry[];
}

/**
 * Zones first in the exports, in this order; any other zone follows in order of first appearance.
 * Grand Archive follows the Omnideck export: main deck, then material deck, then sideboard.
 */
const LEADING_ZONES: Readonly<Record<'default' | 'grand-archive', readonly string[]>> = {
  default: [ZONE.digiEgg, ZONE.resource, ZONE.loadout, ZONE.main, ZONE.sideboard],
  'grand-archive': [ZONE.main, ZONE.material, ZONE.sideboard],
};

/** The deck's entries grouped by zone, in export order; only zones that have entries. */
export function zoneGroups(deck: TextDeck): ZoneGroup[] {
  const leading = LEADING_ZONES[deck.gameId === 'grand-archive' ? 'grand-archive' : 'default'];
  const groups = new Map<string, CardEntry[]>();
  for (const zoneId of leading) groups.set(zoneId, []);
  for (const card of deck.cards) {
    let group = groups.get(card.zoneId);
    if (!group) groups.set(card.zoneId, (group = []));
    group.push(card);
  }
  return [...groups].filter(([, cards]) => cards.length > 0).map(([zoneId, cards]) => ({ zoneId, cards }));
}

function nameOf(names: CardNames, cardId: string): string {
  return singleLine(names.get(cardId) ?? cardId);
}

const idOf = (card: CardEntry): string => singleLine(card.cardId);
const headerOf = (zoneId: string): string => singleLine(zoneLabel(zoneId));

function lines(rows: string[]): string {
  return rows.length === 0 ? '' : `${rows.join('\n')}\n`;
}

/**
 * GET /v1/decks/{id}?format=text. Digimon, Gundam and Chrono Core: `{qty} {name} ({cardId})`
 * lines, each zone group under a `// <Zone label>` header when the deck has more than one zone
 * (the Sleeved layout). Grand Archive: see gaText.
 */
export function deckText(deck: TextDeck, names: CardNames): string {
  if (deck.gameId === 'grand-archive') return gaText(deck, names);
  const groups = zoneGroups(deck);
  const headers = groups.length > 1;
  const rows: string[] = [];
  for (const group of groups) {
    if (headers) rows.push(`// ${headerOf(group.zoneId)}`);
    for (const card of group.cards) rows.push(`${card.quantity} ${nameOf(names, card.cardId)} (${idOf(card)})`);
  }
  return lines(rows);
}

/**
 * Grand Archive list, the layout of the real Omnideck export
 * (`../data/raw/grand-archive/decks/omnideck_export_tristan.txt`, byte for byte): `# Main Deck`,
 * `# Material Deck`, then `# Sideboard`, each followed by its `{qty} {name}` lines, sections
 * separated by one blank line, the text ending with one newline. A section with no cards is left
 * out with its header. The references zone (cards a deck points at but does not play) is not
 * listed. A zone the game does not know still holds cards, so it gets its own `# <Zone label>`
 * section after the sideboard rather than being dropped.
 */
export function gaText(deck: TextDeck, names: CardNames): string {
  const sections = zoneGroups(deck)
    .filter((group) => group.zoneId !== ZONE.references)
    .map(({ zoneId, cards }) => [`# ${headerOf(zoneId)}`, ...cards.map((card) => `${card.quantity} ${nameOf(names, card.cardId)}`)].join('\n'));
  return lines(sections.length === 0 ? [] : [sections.join('\n\n')]);
}

/**
 * GET /v1/decks/{id}/text?format=snapdeck, the service's own import format:
 * `{qty} {name} ({GAME}) ({CARD-ID})`, one line per entry, no headers, zones in export order.
 */
export function snapdeckText(deck: TextDeck, names: CardNames): string {
  const abbreviation = findGame(deck.gameId)?.abbreviation ?? deck.gameId.toUpperCase();
  return lines(zoneGroups(deck).flatMap((group) => group.cards.map((card) => `${card.quantity} ${nameOf(names, card.cardId)} (${abbreviation}) (${idOf(card)})`)));
}

/**
 * GET /v1/decks/{id}/text?format=limitless, the Limitless TCG import layout: `{qty} {name} {cardId}`,
 * one line per entry, no headers, zones in the order of format=text.
 */
export function limitlessText(deck: TextDeck, names: CardNames): string {
  return lines(zoneGroups(deck).flatMap((group) => group.cards.map((card) => `${card.quantity} ${nameOf(names, card.cardId)} ${idOf(card)}`)));
}
