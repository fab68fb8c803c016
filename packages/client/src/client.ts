import type { ApiGame, CardChangesPage, CardsPage, Deck, DeckChangesPage, DeckDetailsResult, GaTtsDeck, GameSlug, PublicDecksPage } from '@snapdeck/contract';
import { DECK_DETAILS_MAX_IDS } from '@snapdeck/contract/limits';
import { walkCards, type WalkOptions, type WalkProgress } from './cards.ts';
import { listAllDeckIds, type EnumerationProgress, type PublicDecksQuery } from './decks.ts';
import { DeckSync, type DeckSyncOptions } from './sync-decks.ts';
import { CardSync, type CardSyncOptions } from './sync-cards.ts';
import { Transport, type ClientOptions, type Query } from './http.ts';
import { OpenSearchIndexes, type SearchIndex, type SearchOptions, type SearchResult } from './search-indexes.ts';
import type { GameCards, GameHits } from './types.ts';
import { CLIENT_VERSION } from './version.ts';

const path = (...parts: string[]) => parts.map(encodeURIComponent).join('/');

/**
 * The snapdeck API (/v1) for partners: every operation, typed from the contract's schemas, plus
 * the walks and syncs of interface.md §4.2 and §4.4 and decisions.md "Card changes" and "Deck changes". Every call retries 429 (waiting for
 * the window, up to a cap), 5xx and network errors (jittered exponential backoff), never other
 * 4xx, and fails with a SnapdeckError subclass.
 */
export class SnapdeckClient {
  /** This client's version (semver), also sent in every request's X-Client header. */
  static readonly version: string = CLIENT_VERSION;
  private readonly http: Transport;
  private readonly searches: OpenSearchIndexes;

  constructor(options: ClientOptions) {
    this.http = new Transport(options);
    this.searches = new OpenSearchIndexes(this.http, options.searchOrigins ?? []);
  }

  private async data<T>(method: 'GET' | 'POST', route: string, query?: Query, body?: unknown): Promise<T> {
    return ((await this.http.request(method, route, query, body)).body as { data: T }).data;
  }

  /** GET /games */
  listGames(): Promise<ApiGame[]> {
    return this.data('GET', '/games');
  }

  /** GET /games/{slug}/cards: one page (walkCards follows the cursors for you). */
  getCardsPage<G extends GameSlug>(game: G, options: { hitsPerPage?: number; cursor?: string } = {}): Promise<CardsPage<GameHits[G]>> {
    return this.data('GET', `/games/${path(game)}/cards`, { hitsPerPage: options.hitsPerPage, cursor: options.cursor });
  }

  /** GET /games/{slug}/cards/{cardId} */
  getCard<G extends GameSlug>(game: G, cardId: string): Promise<GameCards[G]> {
    return this.data('GET', `/games/${path(game, 'cards', cardId)}`);
  }

  /**
   * Every hit of a game, typed for that game: `for await (const hit of client.walkCards('digimon'))`.
   * Restarts on 400 `Invalid cursor` without yielding an id twice; the generator's return value
   * (and onProgress) reports pages, hits, totalHits and restarts.
   */
  walkCards<G extends GameSlug>(game: G, options: WalkOptions = {}): AsyncGenerator<GameHits[G], WalkProgress> {
    return walkCards<G>((hitsPerPage, cursor) => this.getCardsPage(game, { hitsPerPage, cursor }), options);
  }

  /** GET /games/{slug}/changes: one page of the net change since a version (syncCards follows it for you). */
  getCardChanges<G extends GameSlug>(game: G, options: { since: string; limit?: number; cursor?: string }): Promise<CardChangesPage<GameHits[G]>> {
    return this.data('GET', `/games/${path(game)}/changes`, { since: options.since, limit: options.limit, cursor: options.cursor });
  }

  /**
   * The incremental card sync: `const sync = client.syncCards('digimon', { checkpoint })`, iterate
   * it for reset / upsert / delete events, then store `sync.checkpoint` (also the last event).
   */
  syncCards<G extends GameSlug>(game: G, options: CardSyncOptions = {}): CardSync<G> {
    return new CardSync<G>(this, game, options);
  }

  /** GET /decks/public (needs decks:browse:public). */
  listPublicDecks(game: GameSlug, query: PublicDecksQuery = {}): Promise<PublicDecksPage> {
    return this.data('GET', '/decks/public', { gameId: game, ...query });
  }

  /**
   * POST /decks/details (needs decks:read:public), 50 ids per call: any number of ids is sent
   * in as many calls as needed, and the answers merged.
   */
  async getDeckDetails(ids: readonly string[]): Promise<DeckDetailsResult> {
    const result: DeckDetailsResult = { decks: [], unresolved: [] };
    for (let i = 0; i < ids.length; i += DECK_DETAILS_MAX_IDS) {
      const part = await this.data<DeckDetailsResult>('POST', '/decks/details', undefined, { ids: ids.slice(i, i + DECK_DETAILS_MAX_IDS) });
      result.decks.push(...part.decks);
      result.unresolved.push(...part.unresolved);
    }
    return result;
  }

  /** GET /decks/{deckId} (format=json; no key needed). */
  getDeck(deckId: string, options: { token?: string } = {}): Promise<Deck> {
    return this.data('GET', `/decks/${path(deckId)}`, { token: options.token });
  }

  /** GET /decks/{deckId}?format=ga-tts (grand-archive decks). */
  getGaTtsDeck(deckId: string, options: { token?: string } = {}): Promise<GaTtsDeck> {
    return this.data('GET', `/decks/${path(deckId)}`, { format: 'ga-tts', token: options.token });
  }

  /** GET /decks/{deckId}?format=text, or GET /decks/{deckId}/text?format=limitless|snapdeck (keyed). */
  async getDeckText(deckId: string, format: 'text' | 'limitless' | 'snapdeck', options: { token?: string } = {}): Promise<string> {
    const reply =
      format === 'text'
        ? await this.http.request('GET', `/decks/${path(deckId)}`, { format, token: options.token })
        : await this.http.request('GET', `/decks/${path(deckId)}/text`, { format, token: options.token });
    return reply.body as string;
  }

  /** GET /decks/changes (needs decks:browse:public): one page of the deck change feed (syncDecks follows it for you). */
  getDeckChanges(game: GameSlug, options: { since?: string; limit?: number } = {}): Promise<DeckChangesPage> {
    return this.data('GET', '/decks/changes', { gameId: game, since: options.since, limit: options.limit });
  }

  /**
   * The deck sync that keeps a mirror exact: `const sync = client.syncDecks('digimon', { checkpoint })`,
   * iterate it for reset / upsert / removed events, then store `sync.checkpoint` (also the last
   * event). Needs decks:browse:public and decks:read:public.
   */
  syncDecks(game: GameSlug, options: DeckSyncOptions = {}): DeckSync {
    return new DeckSync(this, game, options);
  }

  /** Every public deck id of a game (a full enumeration; syncDecks does not need one). */
  listAllDeckIds(game: GameSlug, options: { onProgress?: (progress: Readonly<EnumerationProgress>) => void } = {}): Promise<Set<string>> {
    return listAllDeckIds(this, game, options);
  }

  /**
   * The game's current search index, opened (GET /search/{searchIndexName}, then the engine and
   * the chunks each query needs). Reuse it: its `version` stays the one it opened.
   */
  searchIndex<G extends GameSlug>(game: G): Promise<SearchIndex<G>> {
    return this.searches.open(game);
  }

  /**
   * One client-side search of a game's cards: typed hits, the total, the version searched, and
   * with `facets: true` the facet counts. The opened index is kept and reused until the game's
   * version changes.
   */
  searchCards<G extends GameSlug>(game: G, query: string, options: SearchOptions = {}): Promise<SearchResult<GameHits[G]>> {
    return this.searches.search(game, query, options);
  }
}
