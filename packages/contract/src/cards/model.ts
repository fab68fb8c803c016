import type { z } from 'zod';
import type { GameSlug } from '../games.ts';

/**
 * What the rest of snapdeck needs to know about one game's cards. Each game has one module in
 * this folder exporting a CardModel; `index.ts` collects them.
 */
export interface CardModel<Card extends { id: string } = { id: string } & Record<string, unknown>> {
  game: GameSlug;
  /** The full card, exactly as GET /v1/games/{slug}/cards/{cardId} serves it. Strict: unknown keys fail. */
  card: z.ZodType<Card>;
  /** One element of data.hits in GET /v1/games/{slug}/cards. */
  hit: z.ZodType;
  /** Projects a valid card to its hit; the result satisfies `hit`. */
  toHit(card: Card): Record<string, unknown>;
  /** Plain card name used by text exports ("1 Agumon (BT1-010)"). */
  nameOf(card: Card): string;
  /** Main image URL (ga-tts export, deck tools). */
  imageUrlOf(card: Card): string;
}
