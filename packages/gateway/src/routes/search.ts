import type { Context } from 'hono';
import { GAMES, SEARCH_PATHS, SEARCH_QUOTA_DEFAULT, type SearchDescriptor } from '@snapdeck/contract';
import { SearchIndexes } from '@snapdeck/snapshot';
import { negotiateEncoding } from '../http/accept-encoding.ts';
import { CACHE } from '../http/cache-policy.ts';
import { clientAddress } from '../http/client-address.ts';
import { sendAs, sendError, sendRendered, sendRepresentation } from '../http/response.ts';
import { addSurrogateKeys, gameKey } from '../http/surrogate-keys.ts';
import { meterAddress } from '../middleware/quota.ts';
import { varyOn } from '../middleware/vary.ts';
import type { GatewayEnv } from '../env.ts';
import type { GatewayRoutes } from '../router.ts';

/** Public games by the name of their search index (playtest and other internal games have none). */
const GAME_BY_INDEX = new Map(GAMES.map((game) => [game.searchIndexName, game]));

/**
 * Client-side search (decisions.md "Search"): the descriptor of a game's current index, and the
 * files of each kept version's index, read out of the version's search pack. No API key (browsers
 * hold none); metered per client address, in a bucket apart from GET /decks/{deckId}'s, so that
 * people searching behind one address never spend its deck-link views, nor the reverse.
 */
export function searchRoutes({ get, versions, quota, searchQuota, trustProxy }: GatewayRoutes): void {
  const indexes = new SearchIndexes(versions.snapshots);
  const metered = meterAddress(quota, 'search', searchQuota ?? SEARCH_QUOTA_DEFAULT, (c: Context) => clientAddress(c, trustProxy));
  const fileAs = new Map<string, ReturnType<typeof sendAs>>();
  const asFor = (contentType: string) => {
    let as = fileAs.get(contentType);
    if (!as) fileAs.set(contentType, (as = sendAs(contentType, CACHE.searchFile)));
    return as;
  };

  get('/v1/search/:name', varyOn(), metered, async (c) => {
    const game = GAME_BY_INDEX.get(c.req.param('name')!);
    if (!game) return sendError(c, 'searchIndexNotFound');
    addSurrogateKeys(c, gameKey(game.slug));
    const current = await versions.readCurrent(game.slug, (version) => version);
    const table = await indexes.table(game.slug, current.version);
    if (!table) return sendError(c, 'searchIndexNotFound');
    const data: SearchDescriptor = {
      name: game.searchIndexName,
      gameId: game.slug,
      version: table.version,
      engine: table.engine,
      engineVersion: table.engineVersion,
      baseUrl: SEARCH_PATHS.base(game.searchIndexName, table.version),
      facets: table.facets,
    };
    return sendRendered(c, JSON.stringify({ data }), { cacheControl: CACHE.searchDescriptor });
  });

  /** A file of a kept version's index: `file` at the top, or `folder/file` (index, filter and fragment chunks). */
  const serveFile = async (c: Context<GatewayEnv>, path: string) => {
    const game = GAME_BY_INDEX.get(c.req.param('name')!);
    if (!game) return sendError(c, 'searchIndexNotFound');
    const body = await indexes.file(game.slug, c.req.param('version')!, path, negotiateEncoding(c));
    if (!body) return sendError(c, 'searchIndexNotFound');
    return sendRepresentation(c, body, asFor(body.contentType));
  };
  get('/v1/search/:name/:version/:file', varyOn(), metered, (c) => serveFile(c, c.req.param('file')!));
  get('/v1/search/:name/:version/:folder/:file', varyOn(), metered, (c) => serveFile(c, `${c.req.param('folder')!}/${c.req.param('file')!}`));
}
