import type { GameSlug } from '@snapdeck/contract/games';
import type { SearchDescriptor } from '@snapdeck/contract/search';
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
    return SearchIndex.open(game, await this.descriptor(game), `${this.http.base}/`, this.http.fetch);
  }

  async search<G extends GameSlug>(game: G, query: string, options: SearchOptions): Promise<SearchResult<GameHits[G]>> {
    const kept = this.open_.get(game);
    let index: SearchIndex<G>;
    if (kept && Date.now() - kept.checkedAt < RECHECK_MS) {
      index = (await kept.index) as SearchIndex<G>;
    } else {
      const descriptor = await this.descriptor(game);
      const previous = kept ? ((await kept.index.catch(() => null)) as SearchIndex<G> | null) : null;
      const opening = previous?.version === descriptor.version ? Promise.resolve(previous) : SearchIndex.open(game, descriptor, `${this.http.base}/`, this.http.fetch);
      this.open_.set(game, { index: opening, checkedAt: Date.now() });
      opening.catch(() => this.open_.delete(game));
      index = await opening;
    }
    return index.search(query, options);
  }
}
