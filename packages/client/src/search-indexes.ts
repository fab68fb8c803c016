import type { GameSlug, SearchDescriptor } from '@snapdeck/contract';
import type { Transport } from './http.ts';
import { SearchIndex, descriptorPath, type SearchOptions, type SearchResult } from './search.ts';
import type { GameHits } from './types.ts';

export { SearchIndex, type SearchOptions, type SearchResult };

/** How long searchCards trusts an opened index before it asks for the game's descriptor again. */
const RECHECK_MS = 60_000;

/** The indexes searchCards keeps open, one per game, reopened when the game's version moves. */
export class OpenSearchIndexes {
  private readonly open_ = new Map<GameSlug, { index: Promise<SearchIndex<GameSlug>>; checkedAt: number }>();

  constructor(private readonly http: Transport) {}

  async descriptor(game: GameSlug): Promise<SearchDescriptor> {
    return ((await this.http.request('GET', descriptorPath(game))).body as { data: SearchDescriptor }).data;
  }

  /** A freshly opened index of the game's current version. */
  async open<G extends GameSlug>(game: G): Promise<SearchIndex<G>> {
    return SearchIndex.open(game, await this.descriptor(game), `${this.http.base}/`, this.http.fetch, this.http.givenFetch);
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
      previous !== null && previous.version === descriptor.version ? Promise.resolve(previous) : SearchIndex.open<GameSlug>(game, descriptor, `${this.http.base}/`, this.http.fetch, this.http.givenFetch);
    this.open_.set(game, { index: opening, checkedAt: Date.now() });
    opening.catch(() => this.open_.get(game)?.index === opening && this.open_.delete(game));
    return opening;
  }
}
