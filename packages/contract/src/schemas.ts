import { z } from 'zod';
import { GAME_SLUGS } from './games.ts';

/**
 * Response shapes of /v1 (interface.md §2, §4), as zod schemas. The gateway's tests validate real
 * responses against them, and /v1/openapi.json is generated from them.
 */
export const errorBody = z.object({
  error: z.string(),
  detail: z.string().optional(),
});

export const envelope = <T extends z.ZodType>(data: T) => z.object({ data });

export const gameSchema = z.object({
  id: z.enum(GAME_SLUGS),
  displayName: z.string(),
  searchIndexName: z.string(),
});

export const gamesResponse = envelope(z.array(gameSchema));

export const cardsPageResponse = <H extends z.ZodType>(hit: H) =>
  envelope(
    z.object({
      hits: z.array(hit),
      cursor: z.string().nullable(),
      totalHits: z.number().int().nonnegative(),
    }),
  );

/** ISO 8601 with milliseconds, UTC: 2026-11-22T11:05:12.345Z. */
export const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export const cardEntrySchema = z.object({
  cardId: z.string(),
  quantity: z.number().int().positive(),
  zoneId: z.string(),
});

export const deckSummarySchema = z.object({
  id: z.string(),
  gameId: z.enum(GAME_SLUGS),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const deckDetailSchema = z.object({
  id: z.string(),
  gameId: z.enum(GAME_SLUGS),
  name: z.string(),
  cards: z.array(cardEntrySchema),
});

export const deckSchema = z.object({
  id: z.string(),
  name: z.string(),
  gameId: z.enum(GAME_SLUGS),
  ownerDisplayName: z.string(),
  cards: z.array(cardEntrySchema),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const publicDecksResponse = envelope(
  z.object({
    decks: z.array(deckSummarySchema),
    nextCursor: z.string(),
    hasMore: z.boolean(),
    totalCount: z.number().int().nonnegative(),
  }),
);

export const deckDetailsRequest = z.object({ ids: z.array(z.string()) });

export const deckDetailsResponse = envelope(
  z.object({
    decks: z.array(deckDetailSchema),
    unresolved: z.array(z.string()),
  }),
);

export const deckResponse = envelope(deckSchema);

const ttsCard = z.object({
  cardId: z.string(),
  quantity: z.number().int().positive(),
  name: z.string(),
  imageUrl: z.string().nullable(),
  card: z.record(z.string(), z.unknown()).nullable(),
});

export const gaTtsResponse = envelope(
  z.object({
    id: z.string(),
    name: z.string(),
    zones: z.object({
      main: z.array(ttsCard),
      material: z.array(ttsCard),
      references: z.array(ttsCard),
      sideboard: z.array(ttsCard),
    }),
  }),
);
