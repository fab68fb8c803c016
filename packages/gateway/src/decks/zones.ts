import { CHRONO_CORE_LOADOUT_CARD_TYPES, findGame, type GameSlug } from '@snapdeck/contract';

/**
 * The zone a card entry is served with (interface.md §2.5, decisions.md "Zones"):
 *
 * - a stored zone the game recognises is kept as stored, even when it is wrong for the card;
 * - chrono-core: an absent or unrecognised zone is resolved from the catalog: cards whose
 *   `cardType` is Core or Pilot start in `loadout`, all others (including cards missing from the
 *   catalog) go to `main`;
 * - other games: an absent zone is `main`; an unrecognised one is kept (zoneId is an open string).
 */
export function resolveZoneId(game: GameSlug, storedZone: string | null, catalogCardType: string | null): string {
  if (storedZone !== null && isRecognizedZone(game, storedZone)) return storedZone;
  if (game === 'chrono-core') {
    return catalogCardType !== null && (CHRONO_CORE_LOADOUT_CARD_TYPES as readonly string[]).includes(catalogCardType) ? 'loadout' : 'main';
  }
  return storedZone ?? 'main';
}

export function isRecognizedZone(game: GameSlug, zoneId: string): boolean {
  return findGame(game)?.zones.includes(zoneId) ?? false;
}

/** Whether resolving this entry needs the catalog card (lets callers skip card lookups). */
export function needsCatalog(game: GameSlug, storedZone: string | null): boolean {
  return game === 'chrono-core' && (storedZone === null || !isRecognizedZone(game, storedZone));
}

/** Zone labels for text export headers (decisions.md); other zones: each dash-separated word capitalised. */
const ZONE_LABELS: Readonly<Record<string, string>> = {
  'digi-egg': 'Digi-Egg Deck',
  main: 'Main Deck',
  resource: 'Resource Deck',
  loadout: 'Starting Loadout',
  material: 'Material Deck',
  sideboard: 'Sideboard',
};

export function zoneLabel(zoneId: string): string {
  return (
    ZONE_LABELS[zoneId] ??
    zoneId
      .split('-')
      .map((word) => (word ? word[0]!.toUpperCase() + word.slice(1) : word))
      .join('-')
  );
}
