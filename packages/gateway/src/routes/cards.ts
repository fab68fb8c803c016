import { CARD_ID_PATTERN, GAMES, HITS_PER_PAGE, findGame } from '@snapdeck/contract';
import { andThen, type Body } from '@snapdeck/snapshot';
import { negotiateEncoding } from '../http/accept-encoding.ts';
import { CACHE, KEYED_VARY } from '../http/cache-policy.ts';
import { sendAs, sendError, sendRepresentation } from '../http/response.ts';
import { addSurrogateKeys, gameKey } from '../http/surrogate-keys.ts';
import type { GatewayRoutes } from '../router.ts';

/** As many digits as the largest hitsPerPage has: a longer value is refused before Number(). */
const HITS_PER_PAGE_DIGITS = new RegExp(`^\\d{1,${String(HITS_PER_PAGE.max).length}}$`);
const FIRST_PAGE = sendAs('application/json', CACHE.firstPage, KEYED_VARY);
const CURSOR_PAGE = sendAs('application/json', CACHE.cursorPage, KEYED_VARY);
const CARD = sendAs('application/json', CACHE.card, KEYED_VARY);
const GAME_KEY = new Map(GAMES.map((game) => [game.slug, gameKey(game.slug)]));

/** hitsPerPage as the contract allows it (HITS_PER_PAGE: an integer in range, or the default), or null. */
export function parseHitsPerPage(value: string | undefined): number | null {
  if (value === undefined) return HITS_PER_PAGE.default;
  if (!HITS_PER_PAGE_DIGITS.test(value)) return null;
  const n = Number(value);
  return n >= HITS_PER_PAGE.min && n <= HITS_PER_PAGE.max ? n : null;
}

/**
 * GET /v1/games/{slug}/cards and GET /v1/games/{slug}/cards/{cardId}. Both answer synchronously
 * when what they need is in memory (a loaded version, a cached page): the card walk is the
 * busiest path of the gateway. Before these steps: router.ts (access log, common headers) and
 * `keyed` (401, 429); after them: http/response.ts.
 */
export function cardRoutes({ get, keyed, versions }: GatewayRoutes): void {
  get('/v1/games/:slug/cards', keyed, (c) => {
    const game = findGame(c.req.param('slug')!);
    if (!game) return sendError(c, 'gameNotFound');
    addSurrogateKeys(c, GAME_KEY.get(game.slug)!);
    const hitsPerPage = parseHitsPerPage(c.req.query('hitsPerPage'));
    if (hitsPerPage === null) return sendError(c, 'hitsPerPage');
    // An empty cursor is read as "no cursor": clients often send cursor= on the first request.
    const cursor = c.req.query('cursor') || undefined;
    const encoding = negotiateEncoding(c);
    if (cursor === undefined) {
      return andThen(versions.readCurrent(game.slug, (version) => version.page(hitsPerPage, 0, encoding)), (body) => sendRepresentation(c, body, FIRST_PAGE));
    }
    const page = versions.readAtCursor(cursor, game.slug, hitsPerPage, (version, at) => version.page(hitsPerPage, at, encoding));
    return andThen(page, (body: Body | null) => (body ? sendRepresentation(c, body, CURSOR_PAGE) : sendError(c, 'invalidCursor')));
  });

  get('/v1/games/:slug/cards/:cardId', keyed, (c) => {
    const game = findGame(c.req.param('slug')!);
    if (!game) return sendError(c, 'gameNotFound');
    addSurrogateKeys(c, GAME_KEY.get(game.slug)!);
    const cardId = c.req.param('cardId')!;
    if (!CARD_ID_PATTERN.test(cardId)) return sendError(c, 'invalidCardId');
    const encoding = negotiateEncoding(c);
    return andThen(versions.readCurrent(game.slug, (version) => version.card(cardId, encoding)), (body) =>
      body ? sendRepresentation(c, body, CARD) : sendError(c, 'cardNotFound'),
    );
  });
}
