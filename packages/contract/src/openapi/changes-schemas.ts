/** The component schemas of GET /games/{slug}/changes (changes.ts has its operations). */
import { z } from 'zod';
import { CARD_MODELS } from '../cards/index.ts';
import { cardChangesResponse } from '../changes.ts';
import { GAMES, GAME_SLUGS, type GameSlug } from '../games.ts';

/** DigimonCard…: the per-game component name prefix (as schemas.ts's componentPrefix). */
export const prefixOf = (slug: GameSlug) => slug.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());

/** The component schemas of the changes pages, one per game (typed with its hit). */
export function changesSchemas(add: (schema: z.ZodType, id: string, description: string) => void): void {
  for (const slug of GAME_SLUGS) {
    const name = GAMES.find((g) => g.slug === slug)!.displayName;
    add(
      cardChangesResponse(CARD_MODELS[slug].hit),
      `${prefixOf(slug)}CardChanges`,
      `A page of the net change of the ${name} cards from fromVersion to toVersion: each card at most once, by card id; an upsert carries the card's hit as the walk of toVersion serves it. \`cursor\` is null on the last page.`,
    );
  }
}

