import { ZONE, findGame, type GameSlug } from '@snapdeck/contract';

/**
 * The zone a card entry is served with (interface.md §2.5, decisions.md "Zones"):
 *
 * - a stored zone the game recognises is kept as stored, even when it is wrong for the card;
 * - chrono-core and digimon (games with `zoneByCardType`): an absent or unrecognised zone is
 *   resolved from the catalog card's `cardType` (Core or Pilot → `loadout`; Digi-Egg →
 *   `digi-egg`); any other type, and a card missing from the catalog, go to `main`;
 * - other games: an absent zone is `main`; an unrecognised one is kept (zoneId is an open string).
 */
export function resolveZoneId(game: GameSlug, storedZone: string | null, catalogCardType: string | null): string {
  if (storedZone !== null && isRecognizedZone(game, storedZone)) return storedZone;
  const byCardType = findGame(game)?.zoneByCardType;
  if (byCardType) return (catalogCardType !== null && Object.hasOwn(byCardType, catalogCardType) ? byCardType[catalogCardType] : undefined) ?? ZONE.main;
  return storedZone ?? ZONE.main;
}

export function isRecognizedZone(game: GameSlug, zoneId: string): boolean {
  return findGame(game)?.zones.includes(zoneId) ?? false;
}

/** Whether resolving this entry needs the catalog card (lets callers skip card lookups). */
export function needsCatalog(game: GameSlug, storedZone: string | null): boolean {
  return findGame(game)?.zoneByCardType !== undefined && (storedZone === null || !isRecognizedZone(game, storedZone));
}

/**
 * Zone labels for text export headers (decisions.md); other zones: each dash-separated word
 * capitalised. A Map: a stored zone is untrusted text, and `constructor` or `__proto__` must not
 * find what a plain object inherits.
 */
const ZONE_LABELS: ReadonlyMap<string, string> = new Map([
  [ZONE.digiEgg, 'Digi-Egg Deck'],
  [ZONE.main, 'Main Deck'],
  [ZONE.resource, 'Resource Deck'],
  [ZONE.loadout, 'Starting Loadout'],
  [ZONE.material, 'Material Deck'],
  [ZONE.sideboard, 'Sideboard'],
]);

export function zoneLabel(zoneId: string): string {
  return (
    ZONE_LABELS.get(zoneId) ??
    zoneId
      .split('-')
      .map((word) => (word ? word[0]!.toUpperCase() + word.slice(1) : word))
      .join('-')
  );
}
