/**
 * Cache-Control per kind of response, in one place (docs/operators/cache.md explains how a CDN
 * should treat them; docs/partners/caching.md lists them for partners).
 *
 * Card data is public, and the key on card endpoints exists to meter partners, so those
 * responses may be stored by a shared cache — keyed by X-API-Key (they all say `Vary: X-API-Key`),
 * so a cached page is only ever given to the key that fetched it. Anything reached with a deck
 * token is private and never stored. Errors are never stored.
 */
/** GET /games; decisions.md caches the search descriptor like it. */
const GAMES = 'public, max-age=3600';

export const CACHE = {
  games: GAMES,
  /** A page reached by cursor never changes: the cursor pins version, hitsPerPage and page. */
  cursorPage: 'public, max-age=31536000, immutable',
  /** The first page follows the current version, which a rebuild moves. */
  firstPage: 'public, max-age=60',
  card: 'public, max-age=300, stale-while-revalidate=600',
  /** Deck listings and details change with every import; clients revalidate with ETag. */
  deckListing: 'private, no-cache',
  /**
   * A public deck: short, and a cache may serve it a little stale while it refreshes. Without a
   * purge, a deck made private stays readable from a cache for max-age + stale-while-revalidate
   * (90 s); `decks import --purge` drops it at once.
   */
  publicDeck: 'public, max-age=60, stale-while-revalidate=30',
  /** A private deck reached by its token. */
  tokenDeck: 'private, no-store',
  openapi: 'public, max-age=3600',
  /** GET /docs and its assets (they change with a gateway upgrade). */
  docs: 'public, max-age=3600',
  /** GET /v1/search/{name}: follows the current version, cached like GET /games (decisions.md "Search"). */
  searchDescriptor: GAMES,
  /** A file of one version's search index: never changes while the version is kept. */
  searchFile: 'public, max-age=31536000, immutable',
  error: 'no-store',
} as const;

/** Request headers a keyed response depends on, besides Accept-Encoding. */
export const KEYED_VARY = ['X-API-Key'];

/**
 * The Vary header of a response that depends on `varyOn` besides Accept-Encoding. Errors carry
 * the Vary of their route's successes: a cache that remembers an uncacheable answer (Varnish's
 * hit-for-miss) then remembers it for that key only, not for every key asking for the URL.
 */
export function varyHeader(varyOn: readonly string[] = []): string {
  return ['Accept-Encoding', ...varyOn].join(', ');
}
