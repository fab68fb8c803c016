import { GAME_ZONES, ZONE } from './zones.ts';

/**
 * The public games of the contract (interface.md §1, §2.1, §4.7 and decisions.md "Zones").
 * Internal games (chrono-core-playtest and the like) are deliberately absent: anything not in
 * this list is never built, listed or served.
 */
export const GAME_SLUGS = ['digimon', 'gundam', 'grand-archive', 'chrono-core'] as const;
export type GameSlug = (typeof GAME_SLUGS)[number];

export interface Game {
  slug: GameSlug;
  displayName: string;
  /** Name of the client-side search index (GET /v1/games). */
  searchIndexName: string;
  /** Abbreviation used by the snapdeck text export: `{qty} {name} ({GAME}) ({CARD-ID})`. */
  abbreviation: string;
  /** Shape of a card id in this game; a well-formed id that fails it simply is not found. */
  cardIdPattern: RegExp;
  /** Zones a stored deck entry may carry that are kept as they are (decisions.md): GAME_ZONES. */
  zones: readonly string[];
  /**
   * Games whose deck entries with an absent or unrecognised stored zone take their zone from the
   * catalog (decisions.md "Zones"): the card's `cardType` listed here gives the zone, any other
   * type, or a card missing from the catalog, gives `main`. In games without it an absent zone is
   * `main` and an unrecognised one is kept (zoneId is an open string).
   */
  zoneByCardType?: Readonly<Record<string, string>>;
}

/** Card ids of a set code and a number: BT1-010, ST1-01, GD01-001, P-001, R-001. */
const SET_AND_NUMBER = /^[A-Z0-9]+-\d+$/;

/** A game's entry: its search index is named after its slug, its zones come from zones.ts. */
function game(slug: GameSlug, displayName: string, abbreviation: string, rules: Pick<Game, 'cardIdPattern' | 'zoneByCardType'>): Game {
  return { slug, displayName, searchIndexName: `snapdeck_${slug.replaceAll('-', '_')}_cards`, abbreviation, zones: GAME_ZONES[slug], ...rules };
}

export const GAMES: readonly Game[] = [
  game('digimon', 'Digimon Card Game', 'DCG', {
    // Promos have a one-letter set code in the real data (P-001).
    cardIdPattern: SET_AND_NUMBER,
    // Real digimon exports mostly carry no egg section: eggs are told apart by their card type.
    zoneByCardType: { 'Digi-Egg': ZONE.digiEgg },
  }),
  game('gundam', 'Gundam Card Game', 'GUN', { cardIdPattern: SET_AND_NUMBER }),
  // Lowercase opaque slugs: lorraine-wandering-warrior.
  game('grand-archive', 'Grand Archive', 'GA', { cardIdPattern: /^[a-z0-9]+(?:-[a-z0-9]+)*$/ }),
  game('chrono-core', 'Chrono Core', 'CC', {
    // WNR01-001, SD01-001.
    cardIdPattern: /^[A-Z]{2,}\d{2}-\d{3}$/,
    // interface.md §2.5: the starting loadout is the deck's Core and Pilot cards.
    zoneByCardType: { Core: ZONE.loadout, Pilot: ZONE.loadout },
  }),
];

const bySlug = new Map<string, Game>(GAMES.map((g) => [g.slug, g]));

/** The public game for a slug, or undefined for unknown and internal games alike. */
export function findGame(slug: string): Game | undefined {
  return bySlug.get(slug);
}

export function isGameSlug(slug: string): slug is GameSlug {
  return bySlug.has(slug);
}

/** interface.md §4.3 / §8: the only card ids a request may carry. */
export const CARD_ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;
