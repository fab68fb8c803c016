import type { GameSlug, SearchDescriptor } from '@snapdeck/contract';
import type { Transport } from './http.ts';
import { SearchIndex, descriptorPath, type SearchFilesAccess, type SearchOptions, type SearchResult } from './search.ts';
import type { GameHits } from './types.ts';

export { SearchIndex, type SearchOptions, type SearchResult };

/** How long searchCards trusts an opened index before it asks for the game's descriptor again. */
const RECHECK_MS = 60_000;

/** A `searchOrigins` entry as an origin; anything but scheme, host and port is a TypeError. */
function searchOrigin(value: string): string {
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Not a URL: refused below.
  }
  if (url === null || url.origin === 'null' || url.href !== `${url.origin}/`) {
    throw new TypeError(`searchOrigins: ${JSON.stringify(value)} is not an origin (scheme, host and port, like https://cdn.partner.example)`);
  }
  return url.origin;
}

/** The indexes searchCards keeps open, one per game, reopened when the game's version moves. */
export class OpenSearchIndexes {
  private readonly open_ = new Map<GameSlug, { index: Promise<SearchIndex<GameSlug>>; checkedAt: number }>();
  private readonly searchOrigins: readonly string[];

  constructor(
    private readonly http: Transport,
    searchOrigins: readonly string[],
  ) {
    this.searchOrigins = searchOrigins.map(searchOrigin);
  }

  /**
   * Where a search's files may come from: the baseUrl's origin (a relative baseUrl, in a page, is
   * the page's) and the `searchOrigins` option's.
   */
  private access(): SearchFilesAccess {
    const apiBase = new URL(`${this.http.base}/`, (globalThis as { location?: { href: string } }).location?.href).href;
    return { apiBase, origins: [new URL(apiBase).origin, ...this.searchOrigins], fetch: this.http.fetch, givenFetch: this.http.givenFetch };
  }

  async descriptor(game: GameSlug): Promise<SearchDescriptor> {
    return ((await this.http.request('GET', descriptorPath(game))).body as { data: SearchDescriptor }).data;
  }

  /** A freshly opened index of the game's current version. */
  async open<G extends GameSlug>(game: G): Promise<SearchIndex<G>> {
    return SearchIndex.open(game, await this.descriptor(game), this.access());
  }

  async search<G extends GameSlug>(game: G, query: string, options: SearchOptions): Promise<SearchResult<GameHits[G]>> {
    return ((await this.current(game)) as SearchIndex<G>).search(query, options);
  }

  /** The kept index of the game, reopened when the game's version moved (checked every RECHECK_MS). */
  private async current(game: GameSlug): Promise<SearchIndex<GameSlug>> {
    const kept = this.open_.get(game);
    if (kept && Date.now() - kept.checkedAt < RECHECK_MS) return kept.index;
    const descriptor = await this.descriptor(game);
    const previous = kept ? await kept.index.catch(() => null) : null;
    const opening: Promise<SearchIndex<GameSlug>> =
      previous !== null && previous.version === descriptor.version ? Promise.resolve(previous) : SearchIndex.open<GameSlug>(game, descriptor, this.access());
    this.open_.set(game, { index: opening, checkedAt: Date.now() });
    opening.catch(() => this.open_.get(game)?.index === opening && this.open_.delete(game));
    return opening;
  }
}
