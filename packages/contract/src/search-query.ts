/**
 * What a query string gets from an opened search index (decisions.md "Search"): the ranked hits,
 * their total, the facet counts and the name a typo was corrected to. The one implementation
 * behind @snapdeck/client's SearchIndex.search and the gateway's /search page (which serves it
 * bundled with search-engine.ts as /search/engine.js). Engine-agnostic: it is given the opened
 * Pagefind instance (only its `search` is called) and a way to load the index's names and fuzzy
 * matcher (search-names.ts), needed only for a typo.
 *
 * Matching is the engine's: a query matches name words (the last also as a prefix), ids and
 * numbers, and rules text below names (the build's weights). Ranking by name is ours, from the
 * words the build gives every card (nameWord, nameEntryWord in search.ts): the cards of a name the
 * query is come first; otherwise the query's shortest completion (`Agum` → `Agumon` before
 * `Agumon Expert`), LEAD of its cards, then one card of each other completion, shortest first,
 * then the rest in the engine's order.
 */
import { ID_LIKE_QUERY, compactId, compactName, nameEntryWord, nameWord, searchRecordHit, startsAsTyped, textHasWords } from './search.ts';
import { NameMatcher, type FuzzyNames, type NameSource } from './search-names.ts';

export type { FuzzyNames, NameSource };

export type SearchFilters = Record<string, string | string[]>;
export type FacetCounts = Record<string, Record<string, number>>;
/** A hit's fragment as the engine gives it: the record URL (with the hit), its content, its title. */
export interface EngineHitData { raw_url: string; content: string; meta: Record<string, string | undefined> }
export interface EngineResult { id: string; data(): Promise<EngineHitData> }
export interface EngineSearch { results: EngineResult[]; filters: FacetCounts }
/** What the query logic needs of an opened engine (Pagefind 1.6's module). */
export interface SearchEngine {
  search(term: string | null, options: { filters?: SearchFilters }): Promise<EngineSearch>;
}

export interface CardQueryOptions {
  filters?: SearchFilters;
  /** Hits returned (default 10). */
  limit?: number;
}

export interface CardQueryResult {
  /** Hits matching the query and filters. */
  total: number;
  /** The top `limit` hits (each card's hit JSON, parsed). */
  hits: unknown[];
  /** Facet field → value → hits with it among those matching (as far as the engine has loaded the filters). */
  facets: FacetCounts;
  /** Set when no hit had the words typed and names a typo may have meant were searched instead: the first of them. */
  correctedTo?: string;
}

/** The query logic of one opened index (cardSearch). */
export interface CardSearch {
  search(query: string, options?: CardQueryOptions): Promise<CardQueryResult>;
}

/**
 * The query logic of an opened index: `engine` (Pagefind's module, opened), `loadNames` (the
 * index's names.json and MiniSearch, called once, on the first typo). Keep it with the engine:
 * the names stay loaded.
 */
export const cardSearch = (engine: SearchEngine, loadNames: () => Promise<NameSource>): CardSearch => new CardQuery(engine, loadNames);

/** Cards of the shortest completion shown before the other completions, when it is not the whole query. */
const LEAD = 3;
/** Completions (their first cards) whose names are read to order them by length, in the engine's order. */
const ENTRIES_READ = 16;

/** A name the query starts, with the first card indexed of it (its entry). */
interface Completion {
  name: string;
  key: string;
  entry: EngineResult;
}

interface Ranked {
  order: EngineResult[];
  total: number;
  facets: FacetCounts;
  /** Whether some name starts with the query. */
  completes: boolean;
}

const titleOf = (data: EngineHitData): string => data.meta.title ?? '';
const foldedLength = (name: string): number => name.normalize('NFD').replace(/\p{M}/gu, '').length;
/**
 * A hit's words as typed: its content without the words the build adds for its name (nameWord,
 * nameEntryWord). Its ids stay (`BT1-001_`, idWord: the words `bt1`, `001`), so that a set code
 * typed (`BT1`) is a search, not a typo of some name.
 */
const typedWords = (data: EngineHitData): string => {
  const added = new Set([nameWord(titleOf(data)), nameEntryWord(titleOf(data))]);
  return data.content.split(/\s+/u).filter((word) => !added.has(word)).join(' ');
};
const exactly = (name: string): string => `"${nameWord(name)}"`;

/** Results in order, each once. */
class Ordered {
  readonly order: EngineResult[] = [];
  private readonly seen = new Set<string>();
  add(results: readonly EngineResult[]): void {
    for (const result of results) {
      if (this.seen.has(result.id)) continue;
      this.seen.add(result.id);
      this.order.push(result);
    }
  }
}

class CardQuery implements CardSearch {
  private matcher: Promise<NameMatcher> | null = null;

  constructor(
    private readonly engine: SearchEngine,
    /** The index's names and MiniSearch (names.json, minisearch.js): loaded once, on the first typo. */
    private readonly loadNames: () => Promise<NameSource>,
  ) {}

  async search(query: string, { filters = {}, limit = 10 }: CardQueryOptions = {}): Promise<CardQueryResult> {
    const term = query.trim();
    if (term === '') {
      const all = await this.engine.search(null, { filters });
      return this.result(all.results, all.results.length, all.filters, limit);
    }
    if (ID_LIKE_QUERY.test(term)) {
      // Exactly (quoted): searched as a prefix, a word no index word starts with is searched as
      // the longest index word it starts with (`berguirpente_` as `ber`).
      const byId = await this.engine.search(`"${compactId(term)}"`, { filters });
      if (byId.results.length > 0) return this.result(byId.results, byId.results.length, byId.filters, limit);
    }
    const ranked = await this.ranked(term, filters, limit);
    const shown = await Promise.all(ranked.order.slice(0, limit).map((result) => result.data()));
    // A word of rules text alone ("draw") is a search, not a typo of the closest card name.
    if (ranked.completes || shown.some((data) => textHasWords(typedWords(data), term))) return this.shown(ranked, shown);
    // An id-like query that is no id (`Berguir-Pente`) is corrected only to a name one edit away.
    const meant = (await (this.matcher ??= this.loadNames().then((source) => new NameMatcher(source)))).meant(term, !ID_LIKE_QUERY.test(term));
    const corrected = meant.length > 0 && compactName(meant[0]!) !== compactName(term) ? await this.correction(meant, filters, limit) : null;
    if (corrected === null || corrected.order.length === 0) return this.shown(ranked, shown);
    return { ...(await this.result(corrected.order, corrected.total, corrected.facets, limit)), correctedTo: meant[0]! };
  }

  /**
   * The hits of a query in our order (see the file's comment), from searches of the one or two
   * index chunks the query's words are in: the words typed; the query's name word exactly (a whole
   * name: a word looked up, no scan); its entry word (one card per completion, unfiltered), unless
   * the query is a whole name; its name word (every card of its completions, for the total),
   * unless the query is one plain word, whose search holds them all already. Each search that
   * matches words by prefix scans every word the engine has loaded (at 100,000 cards, several
   * milliseconds), hence the two unless.
   */
  private async ranked(term: string, filters: SearchFilters, limit: number): Promise<Ranked> {
    const typed = compactName(term);
    const none: EngineSearch = { results: [], filters: {} };
    const plainWord = /^[\p{L}\p{N}]+$/u.test(term);
    const [words, named_, whole] = await Promise.all([
      this.engine.search(term, { filters }),
      typed !== '' && !plainWord ? this.engine.search(nameWord(term), { filters }) : none,
      typed !== '' ? this.engine.search(exactly(term), { filters }) : none,
    ]);
    const listed = typed !== '' && whole.results.length === 0 ? await this.engine.search(nameEntryWord(term), {}) : none;
    const out = new Ordered();
    const filtered = Object.keys(filters).length > 0;
    // The first card of each other completion (the entry itself, or its name's best under the filters), shortest name first.
    const others = async (names: readonly Completion[], skip: string): Promise<void> => {
      for (const { name, key, entry } of names) {
        if (out.order.length >= limit) break;
        if (key === skip) continue;
        if (!filtered) out.add([entry]);
        else out.add((await this.engine.search(exactly(name), { filters })).results.slice(0, 1));
      }
    };
    // A whole name: its cards, then the words' order, in which the names it starts follow (their
    // first word starts with it, weighted as a name's).
    out.add(whole.results);
    const names = await this.completions(listed.results, term);
    const shortest = names[0];
    if (shortest !== undefined) {
      const lead = (await this.engine.search(exactly(shortest.name), { filters })).results;
      out.add(lead.slice(0, LEAD));
      await others(names, shortest.key);
      out.add(lead);
    }
    const completes = whole.results.length > 0 || names.length > 0;
    const completions = completes ? named_ : none;
    out.add(words.results);
    out.add(completions.results);
    // Every card matched is in `out` once: the words' and the name word's results hold the rest.
    const total = out.order.length;
    // Counts from one search: the words', unless the name word matched cards they did not (`G-Fa`: the engine reads `gfa`).
    const facets = total === words.results.length || completions.results.length === 0 ? words.filters : completions.filters;
    return { order: out.order, total, facets, completes };
  }

  /**
   * The names that start with the query (by compactName), from the first cards of the first
   * ENTRIES_READ of them in the engine's order: those that start with it as typed first, its
   * punctuation included (startsAsTyped: `Big-` → Big-Rang before Bigro), then the others; each
   * shortest first (by the name's length as written, case and accents aside; the engine's order
   * among equal lengths). A word no index word starts with makes the engine search the longest
   * index word it starts with instead (pagefind_web `find_word_extensions`): when the first
   * entry's name does not start with the query, there is no completion, and no other entry is read.
   */
  private async completions(entries: readonly EngineResult[], term: string): Promise<Completion[]> {
    const typed = compactName(term);
    const read = async (entry: EngineResult) => {
      const name = titleOf(await entry.data());
      return { name, key: compactName(name), length: foldedLength(name), asTyped: startsAsTyped(name, term), entry };
    };
    if (entries.length === 0) return [];
    const first = await read(entries[0]!);
    if (!first.key.startsWith(typed)) return [];
    const rest = await Promise.all(entries.slice(1, ENTRIES_READ).map(read));
    return [first, ...rest].filter(({ key }) => key.startsWith(typed)).sort((a, b) => Number(b.asTyped) - Number(a.asTyped) || a.length - b.length);
  }

  /**
   * The hits for the names a typo may have meant: the first card of each name (best first), then
   * the rest of the first name's ranking (its cards, its completions, what its words match), then
   * the other names' cards.
   */
  private async correction(meant: string[], filters: SearchFilters, limit: number): Promise<Ranked> {
    const [first, ...groups] = await Promise.all([this.ranked(meant[0]!, filters, limit), ...meant.slice(1).map((name) => this.engine.search(exactly(name), { filters }))]);
    const out = new Ordered();
    out.add(first!.order.slice(0, 1));
    for (const group of groups) out.add(group.results.slice(0, 1));
    out.add(first!.order);
    for (const group of groups) out.add(group.results);
    return { order: out.order, total: out.order.length, facets: first!.facets, completes: true };
  }

  private async result(order: readonly EngineResult[], total: number, facets: FacetCounts, limit: number): Promise<CardQueryResult> {
    return this.shown({ order: [...order], total, facets, completes: false }, await Promise.all(order.slice(0, limit).map((result) => result.data())));
  }

  private shown(ranked: Ranked, shown: readonly EngineHitData[]): CardQueryResult {
    return { total: ranked.total, hits: shown.map((data) => JSON.parse(searchRecordHit(data.raw_url)) as unknown), facets: ranked.facets };
  }
}
