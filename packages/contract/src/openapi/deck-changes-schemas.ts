/** The component schemas of GET /decks/changes (deck-changes.ts has its operation). */
import type { z } from 'zod';
import { deckChangeSchema, deckChangesResponse } from '../deck-changes.ts';

export function deckChangesSchemas(add: (schema: z.ZodType, id: string, description: string) => void): void {
  add(deckChangeSchema, 'DeckChange', 'A change of one deck: `upsert` (public, at this updatedAt: fetch its details with POST /decks/details) or `removed` (deleted or no longer public; nothing but the id).');
  add(deckChangesResponse, 'DeckChangesResponse', 'One page of a game\'s deck changes in commit order, each deck at most once. Request again with `since` = `cursor` while `hasMore` is true; keep the last `cursor` as the checkpoint of the next sync.');
}
