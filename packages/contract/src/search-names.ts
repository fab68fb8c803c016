/**
 * Typo tolerance for card search (decisions.md "Search"): the card names a query may have meant.
 * Pagefind has none; MiniSearch (the pinned module every index ships, over the index's
 * names.json) proposes names, and `damerau-levenshtein` keeps those one edit away from the query.
 * Part of the query logic (search-query.ts), in Node and in browsers alike.
 */
import damerau from 'damerau-levenshtein';
import { compactName } from './search.ts';

/** What the query logic uses of a MiniSearch index. */
export interface FuzzyNames {
  search(query: string, options: Record<string, unknown>): Array<{ id: number }>;
  addAll(documents: Array<{ id: number; name: string }>): void;
}

/** What loading an index's names gives: MiniSearch's class (its ES module's default export) and names.json. */
export interface NameSource {
  MiniSearch: new (options: Record<string, unknown>) => FuzzyNames;
  names: string[];
}

/** Names MiniSearch proposes, checked for one edit each. */
const PROPOSED = 60;
/** Names one edit away shown, each with its cards. */
const MEANT = 5;

/**
 * Edits MiniSearch allows in a query word when proposing: two, so that a transposition (two edits
 * to MiniSearch's Levenshtein distance, one to Damerau's) is proposed; one in words of three
 * letters or less.
 */
const proposalEdits = (word: string): number => (word.length > 3 ? 2 : 1);

export class NameMatcher {
  private readonly index: FuzzyNames;
  private readonly names: string[];

  constructor({ MiniSearch, names }: NameSource) {
    this.names = names;
    this.index = new MiniSearch({ fields: ['name'] });
    this.index.addAll(names.map((name, id) => ({ id, name })));
  }

  /**
   * The names a query may have meant, best first: the names one edit (a substitution, an
   * insertion, a deletion or a transposition of two neighbours) from the query, both as compact
   * names (compactName), in MiniSearch's order; when there is none and `closest`, the closest name
   * by MiniSearch's own fuzzy and prefix matching (a typo in a name typed only in part), or none.
   */
  meant(term: string, closest = true): string[] {
    const typed = compactName(term);
    const proposed = this.index.search(term, { fuzzy: proposalEdits, prefix: false, combineWith: 'AND' }).slice(0, PROPOSED);
    const meant = proposed.map((hit) => this.names[hit.id]!).filter((name) => damerau(typed, compactName(name)).steps === 1);
    if (meant.length > 0 || !closest) return [...new Set(meant)].slice(0, MEANT);
    const best = this.index.search(term, { fuzzy: 0.25, prefix: true, combineWith: 'AND' })[0];
    return best === undefined ? [] : [this.names[best.id]!];
  }
}
