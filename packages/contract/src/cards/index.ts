/**
 * The card model of every public game: its card and hit schemas, the hit projection, and how to
 * name and picture a card. Each game's fields are documented at the top of its module.
 */
import type { GameSlug } from '../games.ts';
import type { CardModel } from './model.ts';
import { chronoCoreModel } from './chrono-core.ts';
import { digimonModel } from './digimon.ts';
import { grandArchiveModel } from './grand-archive.ts';
import { gundamModel } from './gundam.ts';

export * from './chrono-core.ts';
export * from './digimon.ts';
export * from './grand-archive.ts';
export * from './gundam.ts';

/** Every public game's card model, by slug. */
export const CARD_MODELS: Record<GameSlug, CardModel> = {
  digimon: digimonModel,
  gundam: gundamModel,
  'grand-archive': grandArchiveModel,
  'chrono-core': chronoCoreModel,
};
