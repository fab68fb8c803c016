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
  /** Zones a stored deck entry may carry that are kept as they are (decisions.md). */
  zones: readonly string[];
  /**
   * Games whose deck entries with an absent or unrecognised stored zone take their zone from the
   * catalog (decisions.md "Zones"): the card's `cardType` listed here gives the zone, any other
   * type, or a card missing from the catalog, gives `main`. In games without it an absent zone is
   * `main` and an unrecognised one is kept (zoneId is an open string).
   */
  zoneByCardType?: Readonly<Record<string, string>>;
}

export const GAMES: readonly Game[] = [
  {
    slug: 'digimon',
    displayName: 'Digimon Card Game',
    searchIndexName: 'snapdeck_digimon_cards',
    abbreviation: 'DCG',
    // BT1-010, ST1-01, EX1-001, P-001 (promos have a one-letter set code in the real data).
    cardIdPattern: /^[A-Z0-9]+-\d+$/,
    zones: ['main', 'digi-egg'],
    // Real digimon exports mostly carry no egg section: eggs are told apart by their card type.
    zoneByCardType: { 'Digi-Egg': 'digi-egg' },
  },
  {
    slug: 'gundam',
    displayName: 'Gundam Card Game',
    searchIndexName: 'snapdeck_gundam_cards',
    abbreviation: 'GUN',
    // GD01-001, ST01-001, R-001, T-001 and the like.
    cardIdPattern: /^[A-Z0-9]+-\d+$/,
    zones: ['main', 'resource'],
  },
  {
    slug: 'grand-archive',
    displayName: 'Grand Archive',
    searchIndexName: 'snapdeck_grand_archive_cards',
    abbreviation: 'GA',
    // Lowercase opaque slugs: lorraine-wandering-warrior.
    cardIdPattern: /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
    zones: ['main', 'material', 'references', 'sideboard'],
  },
  {
    slug: 'chrono-core',
    displayName: 'Chrono Core',
    searchIndexName: 'snapdeck_chrono_core_cards',
    abbreviation: 'CC',
    // WNR01-001, SD01-001.
    cardIdPattern: /^[A-Z]{2,}\d{2}-\d{3}$/,
    zones: ['loadout', 'main', 'sideboard'],
    // interface.md §2.5: the starting loadout is the deck's Core and Pilot cards.
    zoneByCardType: { Core: 'loadout', Pilot: 'loadout' },
  },
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
