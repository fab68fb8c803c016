import { z } from 'zod';
import { deckIdSchema, envelope, timestamp } from './schemas.ts';

/**
 * GET /decks/changes (decisions.md "Deck changes"): a game's public decks that changed, in the
 * writer's commit order, after an opaque cursor. An upsert carries the deck's updatedAt (fetch its
 * details with POST /decks/details); a removal carries nothing but the id: the deck was deleted or
 * is no longer public, without saying which.
 */
export const deckChangeSchema = z.discriminatedUnion('change', [
  z.object({ id: deckIdSchema, change: z.literal('upsert'), updatedAt: timestamp }),
  z.object({ id: deckIdSchema, change: z.literal('removed') }),
]);

export const deckChangesResponse = envelope(
  z.object({
    changes: z.array(deckChangeSchema),
    cursor: z.string().meta({ description: 'Opaque; where the next request continues (`since`). Keep the last one as the sync checkpoint.' }),
    hasMore: z.boolean().meta({ description: 'Whether more changes follow the cursor now: request again with `since` = `cursor` until false.' }),
  }),
);

export type DeckChange = z.infer<typeof deckChangeSchema>;
export type DeckChangesPage = z.infer<typeof deckChangesResponse>['data'];
