import { GAMES } from '@snapdeck/contract';
import { contentTag } from '@snapdeck/snapshot';
import { CACHE, KEYED_VARY } from '../http/cache-policy.ts';
import { sendAs, sendRepresentation } from '../http/response.ts';
import type { GatewayRoutes } from '../router.ts';

/** GET /v1/games: a fixed list, rendered once. */
export function gamesRoutes({ get, keyed }: GatewayRoutes): void {
  const bytes = Buffer.from(
    JSON.stringify({ data: GAMES.map((g) => ({ id: g.slug, displayName: g.displayName, searchIndexName: g.searchIndexName })) }),
  );
  const body = { bytes, etag: contentTag(bytes), encoding: 'identity' } as const;
  const as = sendAs('application/json', CACHE.games, KEYED_VARY);
  get('/v1/games', keyed, (c) => sendRepresentation(c, body, as));
}
