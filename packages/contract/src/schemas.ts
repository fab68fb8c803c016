import { z } from 'zod';
import { GAME_SLUGS } from './games.ts';
import { DECK_DETAILS_MAX_IDS } from './limits.ts';
import { GAME_ZONES } from './zones.ts';

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
      /** decisions.md "Card changes": the snapshot version this page belongs to (a sync checkpoint). */
      indexVersion: z.string(),
    }),
  );

/**
 * ISO 8601 with milliseconds, UTC: 2026-11-22T11:05:12.345Z (what Date#toISOString writes). A
 * plain pattern rather than z.iso.datetime: served timestamps come from toISOString, so a calendar
 * check adds nothing, and the OpenAPI document keeps a pattern a partner can read.
 */
export const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** A UUID v4 in either letter case: how a client may write a deck id. */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/** A UUID v4 in lower case only: a deck id as stored, served and signed into cursors. */
export const LOWER_CASE_UUID_V4 = new RegExp(UUID_V4.source);

/** A deck id as served: a UUID v4, lower-case. */
export const deckIdSchema = z.string().regex(UUID_V4).meta({ format: 'uuid', description: 'Deck id: a UUID v4, served lower-case.' });

export const cardEntrySchema = z.object({
  cardId: z.string(),
  quantity: z.number().int().positive(),
  zoneId: z.string(),
});

export const deckSummarySchema = z.object({
  id: deckIdSchema,
  gameId: z.enum(GAME_SLUGS),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const deckDetailSchema = z.object({
  id: deckIdSchema,
  gameId: z.enum(GAME_SLUGS),
  name: z.string(),
  cards: z.array(cardEntrySchema),
});

export const deckSchema = z.object({
  id: deckIdSchema,
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

/**
 * The body of POST /decks/details. Members other than `ids` are ignored, not refused (the gateway
 * never has refused them), so the document says so rather than closing the object: found by the
 * generated requests (test/generated/openapi-requests.test.ts), which send what the document allows.
 */
export const deckDetailsRequest = z.looseObject({
  ids: z
    // No `format: uuid`: any string is answered 200, a malformed id in `unresolved` (a fuzzer read the
    // format as a promise of 400 for the rest).
    .array(z.string().meta({ description: 'A deck id from the listing (a UUID); any other string is not rejected but comes back in `unresolved`.' }))
    .max(DECK_DETAILS_MAX_IDS),
});

export const deckDetailsResponse = envelope(
  z.object({
    decks: z.array(deckDetailSchema),
    unresolved: z.array(z.string()).meta({ description: 'The requested ids that are malformed, private or missing (no distinction), in request order, each once.' }),
  }),
);

export const deckResponse = envelope(deckSchema);

export const gaTtsCardSchema = z.object({
  cardId: z.string(),
  quantity: z.number().int().positive(),
  name: z.string(),
  imageUrl: z.string().nullable(),
  card: z.record(z.string(), z.unknown()).nullable(),
});

/** An object with one member per zone, in the zones' order. */
const byZone = <const Zones extends readonly string[], T extends z.ZodType>(zones: Zones, member: T) =>
  z.object(Object.fromEntries(zones.map((zone) => [zone, member])) as Record<Zones[number], T>);

export const gaTtsResponse = envelope(
  z.object({
    id: deckIdSchema,
    name: z.string(),
    /**
     * Every Grand Archive zone, always; the deck's cards of any other zone come after them, each
     * zone under its own id (a zoneId is an open string, so the strict document allows them too).
     */
    zones: byZone(GAME_ZONES['grand-archive'], z.array(gaTtsCardSchema)).catchall(z.array(gaTtsCardSchema)),
  }),
);

/** The API's shapes as TypeScript types, for clients (packages/client): one source, the schemas. */
export type ErrorBody = z.infer<typeof errorBody>;
export type ApiGame = z.infer<typeof gameSchema>;
export type CardEntry = z.infer<typeof cardEntrySchema>;
export type DeckSummary = z.infer<typeof deckSummarySchema>;
export type DeckDetail = z.infer<typeof deckDetailSchema>;
export type Deck = z.infer<typeof deckSchema>;
export type GaTtsCard = z.infer<typeof gaTtsCardSchema>;
export type GaTtsDeck = z.infer<typeof gaTtsResponse>['data'];
export type PublicDecksPage = z.infer<typeof publicDecksResponse>['data'];
export type DeckDetailsResult = z.infer<typeof deckDetailsResponse>['data'];
export type CardsPage<Hit> = z.infer<ReturnType<typeof cardsPageResponse<z.ZodType<Hit>>>>['data'];
