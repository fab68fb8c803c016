import { GAMES } from '@snapdeck/contract';
import { contentTag } from '@snapdeck/snapshot';
import type { GatewayRoutes } from '../app.ts';
import { CACHE, KEYED_VARY } from '../http/cache-policy.ts';
import { sendRepresentation } from '../http/send.ts';

/** GET /v1/games: a fixed list, rendered once. */
export function gamesRoutes({ get, keyed }: GatewayRoutes): void {
  const bytes = Buffer.from(
    JSON.stringify({ data: GAMES.map((g) => ({ id: g.slug, displayName: g.displayName, searchIndexName: g.searchIndexName })) }),
  );
  const etag = contentTag(bytes);
  get('/v1/games', keyed, (c) =>
    sendRepresentation(c, { bytes, etag, encoding: 'identity', contentType: 'application/json', cacheControl: CACHE.games, vary: KEYED_VARY }),
  );
}
