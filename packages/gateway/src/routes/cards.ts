import { CARD_ID_PATTERN, GAMES, HITS_PER_PAGE, findGame } from '@snapdeck/contract';
import { VersionGoneError, resolveCursor, andThen, type Body } from '@snapdeck/snapshot';
import type { GatewayRoutes } from '../app.ts';
import { CACHE, KEYED_VARY } from '../http/cache-policy.ts';
import { sendError } from '../http/errors.ts';
import { negotiateEncoding, sendAs, sendRepresentation } from '../http/send.ts';
import { addSurrogateKeys, gameKey } from '../http/surrogate-keys.ts';

const HITS_PER_PAGE_DIGITS = /^\d{1,4}$/;
const FIRST_PAGE = sendAs('application/json', CACHE.firstPage, KEYED_VARY);
const CURSOR_PAGE = sendAs('application/json', CACHE.cursorPage, KEYED_VARY);
const CARD = sendAs('application/json', CACHE.card, KEYED_VARY);
const GAME_KEY = new Map(GAMES.map((game) => [game.slug, gameKey(game.slug)]));

/** hitsPerPage as the contract allows it (integer 1..1000, default 1), or null. */
export function parseHitsPerPage(value: string | undefined): number | null {
  if (value === undefined) return HITS_PER_PAGE.default;
  if (!HITS_PER_PAGE_DIGITS.test(value)) return null;
  const n = Number(value);
  return n >= HITS_PER_PAGE.min && n <= HITS_PER_PAGE.max ? n : null;
}

/**
 * GET /v1/games/{slug}/cards and GET /v1/games/{slug}/cards/{cardId}. Both answer synchronously
 * when what they need is in memory (a loaded version, a cached page): the card walk is the
 * busiest path of the gateway.
 */
export function cardRoutes({ get, keyed, snapshots, withCurrentVersion }: GatewayRoutes): void {
  get('/v1/games/:slug/cards', keyed, (c) => {
    const game = findGame(c.req.param('slug')!);
    if (!game) return sendError(c, 'gameNotFound');
    addSurrogateKeys(c, GAME_KEY.get(game.slug)!);
    const hitsPerPage = parseHitsPerPage(c.req.query('hitsPerPage'));
    if (hitsPerPage === null) return sendError(c, 'hitsPerPage');
    // An empty cursor is read as "no cursor": clients often send cursor= on the first request.
    const cursor = c.req.query('cursor') || undefined;
    const encoding = negotiateEncoding(c.req.header('accept-encoding'));
    const send = (body: Body) => sendRepresentation(c, body, cursor === undefined ? FIRST_PAGE : CURSOR_PAGE);
    if (cursor === undefined) return andThen(withCurrentVersion(game.slug, (version) => version.page(hitsPerPage, 0, encoding)), send);
    return andThen(resolveCursor(snapshots, cursor, game.slug, hitsPerPage), (check) => {
      if (!check.ok) return sendError(c, 'invalidCursor');
      const body = check.version.page(hitsPerPage, check.page, encoding);
      if (!(body instanceof Promise)) return send(body);
      return body.then(send, (error: unknown) => {
        // The version was deleted (snapdeck gc) while this process still had it loaded: a walk
        // on it has to restart.
        if (error instanceof VersionGoneError) return sendError(c, 'invalidCursor');
        throw error;
      });
    });
  });

  get('/v1/games/:slug/cards/:cardId', keyed, (c) => {
    const game = findGame(c.req.param('slug')!);
    if (!game) return sendError(c, 'gameNotFound');
    addSurrogateKeys(c, GAME_KEY.get(game.slug)!);
    const cardId = c.req.param('cardId')!;
    if (!CARD_ID_PATTERN.test(cardId)) return sendError(c, 'invalidCardId');
    const encoding = negotiateEncoding(c.req.header('accept-encoding'));
    return andThen(withCurrentVersion(game.slug, (version) => version.card(cardId, encoding)), (body) =>
      body ? sendRepresentation(c, body, CARD) : sendError(c, 'cardNotFound'),
    );
  });
}
