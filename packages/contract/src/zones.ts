/**
 * Deck zones (interface.md §2.5, decisions.md "Zones"): the one spelling of every zone a public
 * game recognises, and which zones each game has. A served zoneId is still an open string: a
 * stored zone no game knows is kept, so these are the zones with a meaning, not the only values.
 */
export const ZONE = {
  main: 'main',
  digiEgg: 'digi-egg',
  resource: 'resource',
  material: 'material',
  references: 'references',
  sideboard: 'sideboard',
  loadout: 'loadout',
} as const;

export type ZoneId = (typeof ZONE)[keyof typeof ZONE];

/** Zones a stored deck entry of each game may carry that are kept as they are. */
export const GAME_ZONES = {
  digimon: [ZONE.main, ZONE.digiEgg],
  gundam: [ZONE.main, ZONE.resource],
  /** Also the members of every format=ga-tts response, in this order. */
  'grand-archive': [ZONE.main, ZONE.material, ZONE.references, ZONE.sideboard],
  'chrono-core': [ZONE.loadout, ZONE.main, ZONE.sideboard],
} as const;
