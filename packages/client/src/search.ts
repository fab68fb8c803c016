import type { GameSlug, SearchDescriptor } from '@snapdeck/contract';
import { SEARCH_FUZZY_MODULE, SEARCH_INDEX_NAMES, SEARCH_NAMES_FILE, SEARCH_PATHS } from '@snapdeck/contract/search';
import { importPinnedModule, openPinnedEngine, type SearchFilesOptions } from '@snapdeck/contract/search-engine';
import { cardSearch, type CardSearch, type NameSource, type SearchEngine } from '@snapdeck/contract/search-query';
import { NotFoundError, SearchIntegrityError, SearchOriginError } from './errors.ts';
import type { GameHits } from './types.ts';

export interface SearchOptions {
  /** Facet field → value(s) a hit must have (several values of one field: any of them). */
  filters?: Record<string, string | string[]>;
  /** Hits returned (default 10); `total` counts them all. */
  limit?: number;
  /**
   * Count the matching hits per facet value (`facets` in the result). Off by default: the engine
   * (Pagefind 1.6) counts with a linear scan per hit (pagefind_web filter.rs `get_filters`), so a
   * query matching 1,000 of 100,000 cards takes about a second with counts and 20-40 ms without,
   * and an index's filter data (about 1 MB at 100,000 cards) is downloaded on first use.
   */
  facets?: boolean;
}

export interface SearchResult<H> {
  /** The snapshot version searched (the descriptor's when the index was opened). */
  version: string;
  /** Hits matching the query and filters (more than `hits` holds when limited). */
  total: number;
  hits: H[];
  /** With `facets: true`: facet field → value → hits with it among those matching the query and filters. */
  facets?: Record<string, Record<string, number>>;
  /**
   * Set when no hit shown had the words typed (in its name or rules text) and the card names a
   * typo may have meant were searched instead: the first of them.
   */
  correctedTo?: string;
}

interface Pagefind extends SearchEngine {
  options(options: Record<string, unknown>): Promise<void>;
  init(): Promise<void>;
  filters(): Promise<Record<string, Record<string, number>>>;
  destroy?(): Promise<void>;
}

/** The global fetch, looked up at each call: one function, so that clients without a `fetch` option share engines. */
const globalFetch: typeof fetch = (input, init) => globalThis.fetch(input, init);

/** What a search's files may be: from where, fetched how (SearchIndex.open). */
export interface SearchFilesAccess {
  /** The client's baseUrl with a trailing slash (a descriptor's baseUrl is resolved against it). */
  apiBase: string;
  /** The origins allowed: `apiBase`'s and the `searchOrigins` option's. */
  origins: readonly string[];
  /** The client's fetch (its `fetch` option, or the global one). */
  fetch: typeof fetch;
  /** The `fetch` option as given. */
  givenFetch: typeof fetch | undefined;
}

/**
 * How the engine's files are fetched and refused (search-engine.ts in the contract runs the
 * engine only from the pinned bytes, fetched only from the allowed origins): with the client's
 * `fetch` option when given, else the global fetch. Another origin is a SearchOriginError, bytes
 * other than the pinned ones a SearchIntegrityError.
 */
function engineFiles(access: SearchFilesAccess): SearchFilesOptions {
  const origin = (url: string) => new URL(url).origin;
  return {
    origins: access.origins,
    fetch: access.givenFetch ?? globalFetch,
    refuse: (kind, url, status, detail) => {
      const init = { status, detail, method: 'GET', url };
      if (kind === 'origin') return new SearchOriginError({ ...init, error: 'Search origin not allowed', detail: `${detail}; to allow it, pass searchOrigins: [${JSON.stringify(origin(url))}]` });
      if (kind === 'pin') return new SearchIntegrityError({ ...init, error: 'Search engine file mismatch', detail: `${detail}: this client runs only the engine the contract pins; upgrade @snapdeck/client, or check what serves that URL` });
      return new NotFoundError({ ...init, error: 'Search index not found' });
    },
  };
}

const DEFAULT_LIMIT = 10;


/**
 * One opened search index of one version (decisions.md "Search"): Pagefind's chunked index, run
 * here, fetching only the chunks a query needs from the gateway (every file of a version is
 * immutable), and a fuzzy matcher over the card names (MiniSearch, from the same index) for a
 * query that matched nothing as typed. Reuse it across queries: the chunks it loaded stay loaded.
 */
export class SearchIndex<G extends GameSlug> {
  private filtersLoaded: Promise<void> | null = null;
  /** The query logic (the contract's search-query.ts, the /search page's too). */
  private readonly query: CardSearch;

  private constructor(
    readonly game: G,
    readonly descriptor: SearchDescriptor,
    readonly baseUrl: string,
    private readonly engine: Pagefind,
    private readonly fetchText: (url: string) => Promise<string>,
    private readonly files: SearchFilesOptions,
  ) {
    this.query = cardSearch(engine, () => this.names());
  }

  /** The version this index is of. */
  get version(): string {
    return this.descriptor.version;
  }

  static async open<G extends GameSlug>(game: G, descriptor: SearchDescriptor, access: SearchFilesAccess): Promise<SearchIndex<G>> {
    const baseUrl = new URL(descriptor.baseUrl, access.apiBase).href;
    const files = engineFiles(access);
    // The index's data files (names.json): from the allowed origins too, redirects included.
    const fetchText = async (url: string): Promise<string> => {
      const response = await access.fetch(url);
      const { origin } = new URL(response.redirected && response.url !== '' ? response.url : url);
      if (!access.origins.includes(origin)) throw files.refuse('origin', response.url || url, response.status, `${origin} is not an origin search files are fetched from (${access.origins.join(', ')})`);
      if (!response.ok) throw new NotFoundError({ status: response.status, error: 'Search index not found', method: 'GET', url });
      return response.text();
    };
    const engine = await openPinnedEngine<Pagefind>(baseUrl, files);
    await engine.options({ basePath: baseUrl, baseUrl: '/' });
    await engine.init();
    return new SearchIndex(game, descriptor, baseUrl, engine, fetchText, files);
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult<GameHits[G]>> {
    // Every facet's counts come with every search once the filter chunks are loaded (once per index).
    if (options.facets === true) await (this.filtersLoaded ??= this.engine.filters().then(() => undefined));
    const found = await this.query.search(query, { filters: options.filters ?? {}, limit: options.limit ?? DEFAULT_LIMIT });
    return {
      version: this.version,
      total: found.total,
      hits: found.hits as Array<GameHits[G]>,
      ...(options.facets === true ? { facets: found.facets } : {}),
      ...(found.correctedTo === undefined ? {} : { correctedTo: found.correctedTo }),
    };
  }

  /** The index's card names and the fuzzy matcher (MiniSearch), for a typo: pinned, from the version's files. */
  private async names(): Promise<NameSource> {
    const [engine, namesText] = await Promise.all([
      importPinnedModule<{ default: NameSource['MiniSearch'] }>(SEARCH_FUZZY_MODULE, this.baseUrl, this.files),
      this.fetchText(new URL(SEARCH_NAMES_FILE, this.baseUrl).href),
    ]);
    return { MiniSearch: engine.default, names: JSON.parse(namesText) as string[] };
  }
}

/** The search index name of a public game (as GET /v1/games lists it). */
export function searchIndexNameOf(game: GameSlug): string {
  const name = Object.hasOwn(SEARCH_INDEX_NAMES, game) ? SEARCH_INDEX_NAMES[game] : undefined;
  if (name === undefined) throw new TypeError(`unknown game ${JSON.stringify(game)}`);
  return name;
}

export const descriptorPath = (game: GameSlug): string => SEARCH_PATHS.descriptor(searchIndexNameOf(game)).replace(/^\/v1/, '');
