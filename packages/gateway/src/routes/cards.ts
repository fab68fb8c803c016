import { CARD_ID_PATTERN, findGame } from '@snapdeck/contract';
import { VersionGoneError, resolveCursor, type SnapshotVersion } from '@snapdeck/snapshot';
import type { GatewayRoutes } from '../app.ts';
import { CACHE, KEYED_VARY } from '../http/cache-policy.ts';
import { sendError } from '../http/errors.ts';
import { negotiateEncoding, sendRepresentation } from '../http/send.ts';

const HITS_PER_PAGE = /^\d{1,4}$/;

/** hitsPerPage as the contract allows it (integer 1..1000, default 1), or null. */
export function parseHitsPerPage(value: string | undefined): number | null {
  if (value === undefined) return 1;
  if (!HITS_PER_PAGE.test(value)) return null;
  const n = Number(value);
  return n >= 1 && n <= 1000 ? n : null;
}

/** GET /v1/games/{slug}/cards and GET /v1/games/{slug}/cards/{cardId}. */
export function cardRoutes({ app, keyed, snapshots, currentVersion, withCurrentVersion }: GatewayRoutes): void {
  app.get('/v1/games/:slug/cards', keyed, async (c) => {
    const game = findGame(c.req.param('slug'));
    if (!game) return sendError(c, 'gameNotFound');
    const hitsPerPage = parseHitsPerPage(c.req.query('hitsPerPage'));
    if (hitsPerPage === null) return sendError(c, 'hitsPerPage');
    // An empty cursor is read as "no cursor": clients often send cursor= on the first request.
    const cursor = c.req.query('cursor') || undefined;

    let version: SnapshotVersion;
    let page = 0;
    if (cursor !== undefined) {
      const check = await resolveCursor(snapshots, cursor, game.slug, hitsPerPage);
      if (!check.ok) return sendError(c, 'invalidCursor');
      version = check.version;
      page = check.page;
    } else {
      version = await currentVersion(game.slug);
    }
    const encoding = negotiateEncoding(c.req.header('accept-encoding'));
    let body;
    try {
      body = await version.page(hitsPerPage, page, encoding);
    } catch (error) {
      if (!(error instanceof VersionGoneError)) throw error;
      // The version was deleted (snapdeck gc) while this process still had it loaded: a walk on
      // it has to restart; a first page comes from the version now current.
      if (cursor !== undefined) return sendError(c, 'invalidCursor');
      body = await withCurrentVersion(game.slug, (current) => current.page(hitsPerPage, 0, encoding));
    }
    return sendRepresentation(c, {
      ...body,
      contentType: 'application/json',
      cacheControl: cursor === undefined ? CACHE.firstPage : CACHE.cursorPage,
      vary: KEYED_VARY,
    });
  });

  app.get('/v1/games/:slug/cards/:cardId', keyed, async (c) => {
    const game = findGame(c.req.param('slug'));
    if (!game) return sendError(c, 'gameNotFound');
    const cardId = c.req.param('cardId');
    if (!CARD_ID_PATTERN.test(cardId)) return sendError(c, 'invalidCardId');
    const encoding = negotiateEncoding(c.req.header('accept-encoding'));
    const body = await withCurrentVersion(game.slug, (version) => version.card(cardId, encoding));
    if (!body) return sendError(c, 'cardNotFound');
    return sendRepresentation(c, { ...body, contentType: 'application/json', cacheControl: CACHE.card, vary: KEYED_VARY });
  });
}
