/** The search descriptor's schema (the OpenAPI document's SearchIndexResponse); kept apart from search.ts so the client never loads zod. */
import { z } from 'zod';
import { GAME_SLUGS } from './games.ts';

/** GET /v1/search/{searchIndexName}: the descriptor of a game's current index. */
export const searchDescriptorSchema = z.object({
  name: z.string().describe('The searchIndexName (GET /v1/games).'),
  gameId: z.enum(GAME_SLUGS),
  version: z.string().describe('The snapshot version the index was built from (the same cards a walk of that version sees).'),
  engine: z.string().describe('The engine that reads the files (pagefind).'),
  engineVersion: z.string(),
  baseUrl: z.string().describe('Where the files of this version are: /v1/search/{searchIndexName}/{version}/ (immutable while the version is kept).'),
  facets: z.array(z.object({ field: z.string().describe('A hit field, also the filter name in the index.'), label: z.string() })),
});
export const searchDescriptorResponse = z.object({ data: searchDescriptorSchema });

/** GET /v1/search/{searchIndexName}: the data of the descriptor. */
export type SearchDescriptor = z.infer<typeof searchDescriptorSchema>;
