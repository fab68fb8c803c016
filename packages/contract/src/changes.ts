import { z } from 'zod';
import { envelope } from './schemas.ts';

/**
 * GET /games/{slug}/changes (decisions.md "Card changes"): the net change of a game's cards from
 * the version `since` to the version current at the first page, each card at most once, by id.
 */
export const cardChangeSchema = <H extends z.ZodType>(hit: H) =>
  z.discriminatedUnion('change', [
    z.object({ cardId: z.string(), change: z.literal('upsert'), hit }),
    z.object({ cardId: z.string(), change: z.literal('delete') }),
  ]);

export const cardChangesResponse = <H extends z.ZodType>(hit: H) =>
  envelope(
    z.object({
      fromVersion: z.string(),
      toVersion: z.string(),
      changes: z.array(cardChangeSchema(hit)),
      cursor: z.string().nullable(),
    }),
  );

export type CardChange<Hit> = { cardId: string; change: 'upsert'; hit: Hit } | { cardId: string; change: 'delete' };
export type CardChangesPage<Hit> = { fromVersion: string; toVersion: string; changes: Array<CardChange<Hit>>; cursor: string | null };
