import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ADDRESS_QUOTA_DEFAULT, DECK_DETAILS_MAX_IDS, DECK_LIST_LIMIT, DECK_SORTS, UUID_V4, findGame, isDeckSort, type DeckSort, type GameSlug } from '@snapdeck/contract';
import { andThen } from '@snapdeck/snapshot';
import {
  DeckStore, catalogLookup, clampListLimit, deckText, gaTts, limitlessText, listPublicDecks, lookupCards,
  namesOf, parseIsoMs, snapdeckText, type CatalogFor, type StoredDeck,
} from '@snapdeck/store';
import type { GatewayEnv } from '../env.ts';
import { CACHE, KEYED_VARY } from '../http/cache-policy.ts';
import { clientAddress } from '../http/client-address.ts';
import { fromMiddleware, type Step } from '../http/pipeline.ts';
import { respond, sendAs, sendError, sendRendered, sendRepresentation } from '../http/response.ts';
import { ALL_DECKS_KEY, addSurrogateKeys, deckKey } from '../http/surrogate-keys.ts';
import { meterAddress } from '../middleware/quota.ts';
import { requireScope } from '../middleware/scope.ts';
import { varyOn } from '../middleware/vary.ts';
import type { GatewayRoutes } from '../router.ts';

const INTEGER = /^[+-]?\d+$/;
/** POST /decks/details bodies are 50 ids at most; anything far larger is not a valid request. */
const DETAILS_BODY_LIMIT = 64 * 1024;
const TEXT = 'text/plain; charset=utf-8';
const DECK_FORMATS = ['json', 'text', 'ga-tts'] as const;
const isDeckFormat = (format: string): format is (typeof DECK_FORMATS)[number] => (DECK_FORMATS as readonly string[]).includes(format);
const TEXT_FORMATS = { snapdeck: snapdeckText, limitless: limitlessText } as const;
const PUBLIC_DECK = sendAs('application/json', CACHE.publicDeck);
const TOKEN_DECK = sendAs('application/json', CACHE.tokenDeck);

// Connection: close: the rest of the body is never read, so the connection cannot carry another request.
const bodyTooLarge = (c: Context) => sendError(c as Context<GatewayEnv>, 'detailsBody', `the body may be at most ${DETAILS_BODY_LIMIT} bytes`, { Connection: 'close' });
const limitedBody = fromMiddleware(bodyLimit({ maxSize: DETAILS_BODY_LIMIT, onError: bodyTooLarge }));

/**
 * hono/body-limit's rule for POST /v1/decks/details. With a Content-Length (and no
 * Transfer-Encoding) body-limit decides from that header alone, and so does this step, with the
 * same comparison; only a body of unknown length goes through body-limit itself. Why: body-limit
 * asks for the request's Web ReadableStream first, whatever the request, which makes
 * @hono/node-server build a full Fetch Request around the socket and read the body through it;
 * without that c.req.text() reads the body straight from node:http (bench:hotpath,
 * "POST /v1/decks/details (10 ids)").
 */
const detailsBodyLimit: Step = (c, next) => {
  const length = c.req.header('content-length');
  if (length === undefined || c.req.header('transfer-encoding') !== undefined) return limitedBody(c, next);
  return parseInt(length, 10) > DETAILS_BODY_LIMIT ? bodyTooLarge(c) : next();
};

/** The four deck endpoints (interface.md §4.4–4.7, decisions.md "Decks"). */
export function deckRoutes({ get, post, keyed, storeStep, versions, quota, addressQuota, trustProxy }: GatewayRoutes): void {
  // Decks, tokens and the cursor key come from the store view the request is pinned to.
  // What is made from a deck (its bodies, zones resolved) is kept by the store (store/src/decks/kept-decks.ts).
  const decksOf = (c: Context<GatewayEnv>): DeckStore => c.get('store').decks;
  // Cards are read from whichever version is current at the time of each read.
  const catalog: CatalogFor = async (game: GameSlug) =>
    catalogLookup(game, { cardRecord: async (id) => versions.readCurrent(game, (version) => version.cardRecord(id)) });

  /** A deck the request may see: public, or private with a valid token; otherwise null (→ 404). */
  const reachableDeck = (c: Context<GatewayEnv>, deckId: string, token: string | undefined): { deck: StoredDeck; byToken: boolean } | null => {
    addSurrogateKeys(c, ALL_DECKS_KEY);
    if (!UUID_V4.test(deckId)) return null;
    const store = decksOf(c);
    const deck = store.getDeck(deckId.toLowerCase());
    if (!deck) return null;
    addSurrogateKeys(c, deckKey(deck.id));
    if (deck.visibility === 'public') return { deck, byToken: false }; // the token is not checked
    return token !== undefined && store.resolveToken(deck.id, token) ? { deck, byToken: true } : null;
  };

  get('/v1/decks/public', keyed, requireScope('decks:browse:public'), (c) => {
    const gameId = c.req.query('gameId');
    if (gameId === undefined || gameId === '') return sendError(c, 'gameIdRequired');
    const game = findGame(gameId);
    if (!game) return sendError(c, 'gameNotFound');

    const limitText = c.req.query('limit');
    if (limitText !== undefined && !INTEGER.test(limitText)) return sendError(c, 'limitNotInteger');
    const limit = limitText === undefined ? DECK_LIST_LIMIT.default : clampListLimit(Number(limitText));
    const sortText = c.req.query('sort');
    if (sortText !== undefined && !isDeckSort(sortText)) return sendError(c, 'sortInvalid');
    const sort: DeckSort = sortText ?? DECK_SORTS[0];
    const sinceText = c.req.query('updatedSince');
    let updatedSince: number | null = null;
    if (sinceText !== undefined) {
      updatedSince = parseIsoMs(sinceText);
      if (updatedSince === null) {
        return sendError(c, 'updatedSinceInvalid', 'expected a date-time with a time zone, such as 2026-11-22T10:00:00Z or 2026-11-22T11:00:00+01:00');
      }
      if (sort !== 'updatedAt') {
        return sendError(c, 'gameIdRequired', 'updatedSince can only be combined with sort=updatedAt (the default)');
      }
    }
    // An empty startAfter reads as none, like an empty card cursor: the first page.
    const result = listPublicDecks(decksOf(c), c.get('store').cursorKey, { game: game.slug, sort, limit, updatedSince, startAfter: c.req.query('startAfter') || undefined });
    if (!result.ok) return sendError(c, 'invalidCursor');
    addSurrogateKeys(c, ALL_DECKS_KEY);
    return sendRendered(c, JSON.stringify({ data: result.page }), { cacheControl: CACHE.deckListing, vary: KEYED_VARY });
  });

  post(
    '/v1/decks/details',
    keyed,
    requireScope('decks:read:public'),
    detailsBodyLimit,
    async (c) => {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        return sendError(c, 'detailsBody', 'the body is not JSON');
      }
      const ids = (body as { ids?: unknown } | null)?.ids;
      if (typeof body !== 'object' || body === null || Array.isArray(body) || !Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
        return sendError(c, 'detailsBody', 'expected {"ids": ["<deck id>", ...]}');
      }
      if (ids.length > DECK_DETAILS_MAX_IDS) return sendError(c, 'detailsTooMany', `${ids.length} ids were sent`);
      // Not awaited: with every deck's part kept, the bytes are ready at once.
      return andThen(decksOf(c).detailsJson(ids as string[], catalog), (answer) => {
        addSurrogateKeys(c, ALL_DECKS_KEY);
        return respond(c, 200, answer, { 'Content-Type': 'application/json', 'Cache-Control': CACHE.deckListing });
      });
    },
  );

  const addressOf = (c: Context): string => clientAddress(c, trustProxy);

  // /v1/decks/details exists for POST only; without this GET would read it as a deck id. Its 405
  // comes before the address quota, as every 405 does (routes/unmatched.ts): a wrong method is not counted.
  const notDetails: Step = (c, next) => (c.req.param('deckId') === 'details' ? sendError(c, 'methodNotAllowed', undefined, { Allow: 'POST, OPTIONS' }) : next());

  /** format=text and format=ga-tts, rendered per request. */
  const exported = async (c: Context<GatewayEnv>, deck: StoredDeck, format: 'text' | 'ga-tts', cacheControl: string): Promise<Response> => {
    const cards = await decksOf(c).servedCards(deck, catalog);
    const infos = await lookupCards(cards.map((card) => card.cardId), await catalog(deck.gameId));
    if (format === 'text') return sendRendered(c, deckText({ gameId: deck.gameId, cards }, namesOf(infos)), { contentType: TEXT, cacheControl });
    return sendRendered(c, JSON.stringify({ data: gaTts({ id: deck.id, name: deck.name, cards }, infos) }), { cacheControl });
  };

  // Not an async function: a deck whose json body is kept is answered synchronously, like a card
  // (an async handler takes every deck read through a Promise and node-server's asynchronous
  // path: bench:hotpath, "GET /v1/decks/{deckId} (json)").
  get('/v1/decks/:deckId', notDetails, storeStep, varyOn(), meterAddress(quota, 'deck', addressQuota ?? ADDRESS_QUOTA_DEFAULT, addressOf), (c) => {
    const format = c.req.query('format') ?? 'json';
    if (!isDeckFormat(format)) return sendError(c, 'deckFormatUnknown');
    const found = reachableDeck(c, c.req.param('deckId')!, c.req.query('token'));
    if (!found) return sendError(c, 'deckNotFound');
    const { deck, byToken } = found;
    if (format === 'ga-tts' && deck.gameId !== 'grand-archive') return sendError(c, 'gaTtsOnly');
    if (format !== 'json') return exported(c, deck, format, byToken ? CACHE.tokenDeck : CACHE.publicDeck);
    const as = byToken ? TOKEN_DECK : PUBLIC_DECK;
    return andThen(decksOf(c).jsonBody(deck, catalog), (body) => sendRepresentation(c, body, as));
  });

  get('/v1/decks/:deckId/text', keyed, async (c) => {
    const format = c.req.query('format');
    if (format === undefined || format === '') return sendError(c, 'textFormatRequired');
    if (!Object.hasOwn(TEXT_FORMATS, format)) return sendError(c, 'textFormatUnknown');
    const found = reachableDeck(c, c.req.param('deckId')!, c.req.query('token'));
    if (!found) return sendError(c, 'deckNotFound');
    const { deck, byToken } = found;
    const cards = await decksOf(c).servedCards(deck, catalog);
    const names = namesOf(await lookupCards(cards.map((card) => card.cardId), await catalog(deck.gameId)));
    const text = TEXT_FORMATS[format as keyof typeof TEXT_FORMATS]({ gameId: deck.gameId, cards }, names);
    return sendRendered(c, text, { contentType: TEXT, cacheControl: byToken ? CACHE.tokenDeck : CACHE.publicDeck, vary: KEYED_VARY });
  });
}
