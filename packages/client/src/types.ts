import type { ChronoCoreCard, ChronoCoreHit, DigimonCard, DigimonHit, GameSlug, GrandArchiveCard, GrandArchiveHit, GundamCard, GundamHit } from '@snapdeck/contract';

/** The hit of each game's card walk (data.hits of GET /games/{slug}/cards). */
export interface GameHits {
  digimon: DigimonHit;
  gundam: GundamHit;
  'grand-archive': GrandArchiveHit;
  'chrono-core': ChronoCoreHit;
}

/** The full card of each game (data of GET /games/{slug}/cards/{cardId}). */
export interface GameCards {
  digimon: DigimonCard;
  gundam: GundamCard;
  'grand-archive': GrandArchiveCard;
  'chrono-core': ChronoCoreCard;
}

// Every public game has its types here (a game added to the contract fails this line).
export type _EveryGameTyped = [GameSlug] extends [keyof GameHits & keyof GameCards] ? true : never;
const _check: _EveryGameTyped = true;
void _check;
