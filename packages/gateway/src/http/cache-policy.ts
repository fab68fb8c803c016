/**
 * Cache-Control per kind of response, in one place. Keyed responses are `private`: a shared
 * cache must not answer for the gateway, which authenticates and meters every request.
 */
export const CACHE = {
  games: 'private, max-age=3600',
  /** A page reached by cursor never changes: the cursor pins version, hitsPerPage and page. */
  cursorPage: 'private, max-age=31536000, immutable',
  /** The first page follows the current version, which a rebuild moves. */
  firstPage: 'private, max-age=60',
  card: 'private, max-age=300',
  openapi: 'public, max-age=3600',
} as const;
