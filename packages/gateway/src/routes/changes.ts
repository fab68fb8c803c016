import { CHANGES_LIMIT, GAMES, findGame } from '@snapdeck/contract';
import { ChangeFeed, VersionGoneError, type ChangesPage } from '@snapdeck/snapshot';
import { negotiateEncoding } from '../http/accept-encoding.ts';
import { CACHE, KEYED_VARY } from '../http/cache-policy.ts';
import { sendAs, sendError, sendRepresentation } from '../http/response.ts';
import { addSurrogateKeys, gameKey } from '../http/surrogate-keys.ts';
import type { GatewayRoutes } from '../router.ts';

const INTEGER = /^[+-]?\d+$/;
const FIRST_PAGE = sendAs('application/json', CACHE.firstPage, KEYED_VARY);
const CURSOR_PAGE = sendAs('application/json', CACHE.cursorPage, KEYED_VARY);
const GAME_KEY = new Map(GAMES.map((game) => [game.slug, gameKey(game.slug)]));

/** `limit` as decisions.md "Card changes" allows it: an integer, clamped to CHANGES_LIMIT; null when not an integer. */
export function parseChangesLimit(value: string | undefined): number | null {
  if (value === undefined) return CHANGES_LIMIT.default;
  if (!INTEGER.test(value)) return null;
  return Math.min(CHANGES_LIMIT.max, Math.max(CHANGES_LIMIT.min, Math.trunc(Number(value))));
}

/** A later page whose version was deleted while it was read: the cursor is no longer valid. */
function goneIsInvalid(error: unknown): ChangesPage {
  if (error instanceof VersionGoneError) return { ok: false, reason: 'invalidCursor' };
  throw error;
}

/**
 * GET /v1/games/{slug}/changes?since=VERSION[&limit][&cursor] (decisions.md "Card changes"): the
 * net change of a game's cards since a version, read by the snapshot package's ChangeFeed.
 * Precedence: 401 → 429 (keyed) → 400 since → 404 game → 400 limit, cursor → 410 → 200.
 */
export function changesRoutes({ get, keyed, versions }: GatewayRoutes): void {
  const feed = new ChangeFeed(versions.snapshots, versions.snapshots.pointerTtlMs);
  get('/v1/games/:slug/changes', keyed, async (c) => {
    // An empty since is no since, as an empty cursor is no cursor.
    const since = c.req.query('since') || undefined;
    if (since === undefined) return sendError(c, 'sinceRequired');
    const game = findGame(c.req.param('slug')!);
    if (!game) return sendError(c, 'gameNotFound');
    addSurrogateKeys(c, GAME_KEY.get(game.slug)!);
    const limit = parseChangesLimit(c.req.query('limit'));
    if (limit === null) return sendError(c, 'limitNotInteger');
    const cursor = c.req.query('cursor') || undefined;
    const encoding = negotiateEncoding(c);
    if (cursor !== undefined) {
      const page = await feed.pageAt(cursor, game.slug, since, limit, encoding).catch(goneIsInvalid);
      return page.ok ? sendRepresentation(c, page.body, CURSOR_PAGE) : sendError(c, 'invalidCursor');
    }
    const page = await versions.readCurrent(game.slug, (current) => feed.firstPage(current, since, limit, encoding));
    return page.ok ? sendRepresentation(c, page.body, FIRST_PAGE) : sendError(c, 'versionGone');
  });
}
