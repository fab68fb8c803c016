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

/**
 * A game's CardModel from its schemas. The hit schema alone decides `Hit` (NoInfer), so a
 * projection that drops or misnames a hit field fails to compile; every game pictures a card by
 * its `cardImageUrl`, so only the name is said per game.
 */
export function cardModel<Card extends { id: string; cardImageUrl: string }, Hit extends Record<string, unknown>>(
  game: GameSlug,
  schemas: { card: z.ZodType<Card>; hit: z.ZodType<Hit> },
  toHit: (card: Card) => NoInfer<Hit>,
  nameOf: (card: Card) => string,
): CardModel<Card> {
  return { game, card: schemas.card, hit: schemas.hit, toHit, nameOf, imageUrlOf: (card) => card.cardImageUrl };
}
