import type { GameSlug, SearchDescriptor } from '@snapdeck/contract';
import { ID_LIKE_QUERY, textHasWords, nameIs, exactName, searchRecordHit, SEARCH_FUZZY_MODULE, SEARCH_INDEX_NAMES, SEARCH_NAMES_FILE, SEARCH_PATHS, compactId } from '@snapdeck/contract/search';
import { importPinnedModule, openPinnedEngine, type SearchFilesOptions } from '@snapdeck/contract/search-engine';
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
  /** Set when no hit shown had the words typed (in its name or rules text) and the closest card name was searched instead. */
  correctedTo?: string;
}

interface PagefindResult { data(): Promise<{ raw_url: string; content: string; meta: Record<string, string> }> }
interface PagefindSearch { results: PagefindResult[]; filters: Record<string, Record<string, number>> }
interface Pagefind {
  options(options: Record<string, unknown>): Promise<void>;
  init(): Promise<void>;
  filters(): Promise<Record<string, Record<string, number>>>;
  search(term: string | null, options: { filters?: Record<string, string | string[]> }): Promise<PagefindSearch>;
  destroy?(): Promise<void>;
}
interface Fuzzy { search(query: string, options: Record<string, unknown>): Array<{ id: number; score: number }> }
type FuzzyConstructor = new (options: Record<string, unknown>) => Fuzzy & { addAll(docs: Array<{ id: number; name: string }>): void };

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
  private fuzzy: Promise<{ index: Fuzzy; names: string[] }> | null = null;
  private filtersLoaded: Promise<void> | null = null;

  private constructor(
    readonly game: G,
    readonly descriptor: SearchDescriptor,
    readonly baseUrl: string,
    private readonly engine: Pagefind,
    private readonly fetchText: (url: string) => Promise<string>,
    private readonly files: SearchFilesOptions,
  ) {}

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
    const term = query.trim();
    const filters = options.filters ?? {};
    const limit = options.limit ?? DEFAULT_LIMIT;
    // Every facet's counts come with every search once the filter chunks are loaded (once per index).
    if (options.facets === true) await (this.filtersLoaded ??= this.engine.filters().then(() => undefined));
    let found = ID_LIKE_QUERY.test(term) ? await this.engine.search(compactId(term), { filters }) : null;
    if (found === null || found.results.length === 0) found = await this.engine.search(term === '' ? null : term, { filters });
    let data = await Promise.all(found.results.slice(0, limit).map((result) => result.data()));
    let correctedTo: string | undefined;
    // A card's whole name typed, but ranked below cards whose words only start like its short
    // words ("S Gundam", "K"): the cards of exactly that name go first.
    if (term !== '' && !ID_LIKE_QUERY.test(term) && !data.some((d) => nameIs(d.meta.title ?? '', term))) {
      const exact = await this.engine.search(exactName(term), { filters });
      const named = (await Promise.all(exact.results.slice(0, limit).map((result) => result.data()))).filter((d) => nameIs(d.meta.title ?? '', term));
      if (named.length > 0) data = [...named, ...data.filter((d) => !named.some((n) => n.raw_url === d.raw_url))].slice(0, limit);
    }
    // Nothing found, or no hit shown whose words (name or rules text) have every word typed: the
    // words may hold a typo. A word of rules text alone ("draw") is a search, not a typo of the
    // closest card name.
    if (term !== '' && !ID_LIKE_QUERY.test(term) && !data.some((d) => textHasWords(d.content, term))) {
      const name = await this.closestName(term);
      if (name !== null && name.toLowerCase() !== term.toLowerCase()) {
        const retry = await this.engine.search(name, { filters });
        if (retry.results.length > 0) {
          found = retry;
          data = await Promise.all(found.results.slice(0, limit).map((result) => result.data()));
          correctedTo = name;
        }
      }
    }
    return {
      version: this.version,
      total: found.results.length,
      hits: data.map((d) => JSON.parse(searchRecordHit(d.raw_url)) as GameHits[G]),
      ...(options.facets === true ? { facets: found.filters } : {}),
      ...(correctedTo === undefined ? {} : { correctedTo }),
    };
  }

  /** The card name closest to `term` (typos, missing letters), or null. */
  private async closestName(term: string): Promise<string | null> {
    this.fuzzy ??= (async () => {
      const [engine, namesText] = await Promise.all([
        importPinnedModule<{ default: FuzzyConstructor }>(SEARCH_FUZZY_MODULE, this.baseUrl, this.files),
        this.fetchText(new URL(SEARCH_NAMES_FILE, this.baseUrl).href),
      ]);
      const MiniSearch = engine.default;
      const names = JSON.parse(namesText) as string[];
      const index = new MiniSearch({ fields: ['name'], searchOptions: { fuzzy: 0.25, prefix: true } });
      index.addAll(names.map((name, id) => ({ id, name })));
      return { index, names };
    })();
    const { index, names } = await this.fuzzy;
    const best = index.search(term, { combineWith: 'AND' })[0];
    return best ? names[best.id]! : null;
  }
}

/** The search index name of a public game (as GET /v1/games lists it). */
export function searchIndexNameOf(game: GameSlug): string {
  const name = Object.hasOwn(SEARCH_INDEX_NAMES, game) ? SEARCH_INDEX_NAMES[game] : undefined;
  if (name === undefined) throw new TypeError(`unknown game ${JSON.stringify(game)}`);
  return name;
}

export const descriptorPath = (game: GameSlug): string => SEARCH_PATHS.descriptor(searchIndexNameOf(game)).replace(/^\/v1/, '');
