import { DECK_CHANGES_LIMIT, findGame } from '@snapdeck/contract';
import { DeckChangeFeed } from '@snapdeck/store';
import { CACHE, KEYED_VARY } from '../http/cache-policy.ts';
import { sendError, sendRendered } from '../http/response.ts';
import { ALL_DECKS_KEY, addSurrogateKeys } from '../http/surrogate-keys.ts';
import { requireScope } from '../middleware/scope.ts';
import type { GatewayRoutes } from '../router.ts';

const INTEGER = /^[+-]?\d+$/;

/** `limit` as decisions.md "Deck changes" allows it: an integer, clamped to DECK_CHANGES_LIMIT; null when not an integer. */
export function parseDeckChangesLimit(value: string | undefined): number | null {
  if (value === undefined) return DECK_CHANGES_LIMIT.default;
  if (!INTEGER.test(value)) return null;
  return Math.min(DECK_CHANGES_LIMIT.max, Math.max(DECK_CHANGES_LIMIT.min, Math.trunc(Number(value))));
}

/**
 * GET /v1/decks/changes?gameId=&since=&limit= (decisions.md "Deck changes"): a game's public deck
 * changes in the writer's commit order, read from the store view the request is pinned to
 * (@snapdeck/store's DeckChangeFeed), so every gateway following the same store answers the same
 * cursor the same way. Precedence: 401 → 429 (keyed) → 403 → 400 gameId → 404 game → 400 limit,
 * cursor → 410 → 200. Answers are per key and move with every import: `private, no-cache`, like
 * the listings (a shared cache never stores them).
 */
export function deckChangesRoutes({ get, keyed }: GatewayRoutes): void {
  get('/v1/decks/changes', keyed, requireScope('decks:browse:public'), (c) => {
    const gameId = c.req.query('gameId');
    if (gameId === undefined || gameId === '') return sendError(c, 'gameIdRequired');
    const game = findGame(gameId);
    if (!game) return sendError(c, 'gameNotFound');
    const limit = parseDeckChangesLimit(c.req.query('limit'));
    if (limit === null) return sendError(c, 'limitNotInteger');
    const view = c.get('store');
    // An empty since reads as none, like an empty startAfter: the cursor of now.
    const result = DeckChangeFeed.of(view.decks.db).page(view.cursorKey, game.slug, c.req.query('since') || undefined, limit);
    if (!result.ok) return sendError(c, result.error === 'cursorGone' ? 'deckCursorGone' : 'invalidCursor');
    addSurrogateKeys(c, ALL_DECKS_KEY);
    return sendRendered(c, JSON.stringify({ data: result.page }), { cacheControl: CACHE.deckListing, vary: KEYED_VARY });
  });
}
