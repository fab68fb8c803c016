/**
 * Client-side card search (decisions.md "Search"): what each game's index holds and how it is
 * named and served. The build (packages/snapshot/src/search), the gateway's /v1/search routes,
 * the /search page and @snapdeck/client all read these, never retype them.
 */
import { GAMES, type GameSlug } from './games.ts';

/** The engine every index is built with (Pagefind, chunked), and its version. */
export const SEARCH_ENGINE = { name: 'pagefind', version: '1.6.0' } as const;
/** The fuzzy name matcher shipped beside it (SEARCH_FUZZY_MODULE). */
export const SEARCH_FUZZY_ENGINE = { name: 'minisearch', version: '7.2.0' } as const;

/** A filter of a game's index: a hit field whose values (a string, or each string of an array) are counted. */
export interface SearchFacet {
  /** The hit field, also the filter's name in the index. */
  field: string;
  label: string;
}

/** What a game's index is made of, by hit field. */
export interface SearchFields {
  /** Hit fields whose words are the card's rules text (ranked below the name). */
  text: readonly string[];
  /** Hit fields holding card numbers, matched exactly like the id. */
  numbers: readonly string[];
  facets: readonly SearchFacet[];
}

const set: SearchFacet = { field: 'setId', label: 'Set' };
const rarity: SearchFacet = { field: 'rarity', label: 'Rarity' };
const cardType: SearchFacet = { field: 'cardType', label: 'Type' };
const color: SearchFacet = { field: 'color', label: 'Color' };

export const SEARCH_FIELDS: Readonly<Record<GameSlug, SearchFields>> = {
  digimon: {
    text: ['effect', 'inheritedEffect', 'securityEffect', 'type', 'form', 'attribute'],
    numbers: ['cardNumber'],
    facets: [set, cardType, color, rarity],
  },
  gundam: {
    text: ['effect', 'traits', 'linkCondition'],
    numbers: ['cardNumber'],
    facets: [set, cardType, color, rarity, { field: 'traits', label: 'Trait' }],
  },
  'grand-archive': {
    text: ['effect', 'typeLine'],
    numbers: [],
    facets: [set, { field: 'types', label: 'Type' }, { field: 'element', label: 'Element' }, { field: 'classes', label: 'Class' }, rarity],
  },
  'chrono-core': {
    text: ['effect', 'traits'],
    numbers: ['cardNumber'],
    facets: [set, cardType, { field: 'slot', label: 'Slot' }, rarity, { field: 'traits', label: 'Trait' }],
  },
};

/** The values a hit field contributes to a facet: strings and numbers, one or an array; null and "" none. */
export function facetValues(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v) => (typeof v === 'string' && v !== '') || typeof v === 'number').map(String);
}

/**
 * An id or card number as one word: its letters and digits in lower case, then `_` (a word
 * character to Pagefind, never part of an id's letters and digits), so that the engine's stemmer
 * leaves it as it is (`aesan-flames` is not `aesan-flame`) and no other id's word starts with it.
 * What a client searches, quoted (exactly), when a query is one id-like word (`BT1-001` →
 * `bt1001_`). The build writes each id as `idWord` does, and the engine makes this word of it.
 */
export const compactId = (id: string): string => `${id.replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase()}_`;

/**
 * An id or card number as the build writes it in a card's content: `_` as `-`, then `_`
 * (`BT1-001_P1` → `BT1-001-P1_`). Pagefind indexes a word with `-` inside as its parts (`bt`,
 * `001`, `p1`) and joined without the `-` (keeping `_`): `bt1001p1_`, which is compactId. The
 * index used to hold a compact word of its own beside the id, which added two words per card
 * (Pagefind also indexed the part of it after its letters: `08011` of `st08011_`): the real
 * Digimon index chunks were 576 kB with it, 530 kB without.
 */
export const idWord = (id: string): string => `${id.replaceAll('_', '-')}_`;

/** A query that may be an id: one word with a separator inside (`BT1-010`, `aesan-burn-2`). */
export const ID_LIKE_QUERY = /^[\p{L}\p{N}]+(?:[-_.][\p{L}\p{N}]+)+$/u;

/** Text in the form the engine indexes words: accents dropped, lower case. */
const fold = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Whether a text (a card's name, or its indexed content: name, ids and rules text) has every word
 * of a query (the last one also as a prefix of a word), case and accents aside. When no hit shown
 * has them, clients try the closest card names (a typo).
 */
export const textHasWords = (text: string, query: string): boolean => {
  const [words, typed] = [text, query].map((value) => fold(value).split(/[^\p{L}\p{N}]+/u).filter(Boolean)) as [string[], string[]];
  return typed.every((word, i) => words.some((w) => w === word || (i === typed.length - 1 && w.startsWith(word))));
};

/** Text as a name is typed: case, accents and runs of spaces aside. */
const asTyped = (text: string): string => fold(text).replace(/\s+/gu, ' ');

/**
 * Whether a name starts with a query as typed, its punctuation included (`Big-Rang` starts
 * `Big-`, `Bigro` does not): among the names whose compact form (compactName) the query's
 * starts, these are its completions first.
 */
export const startsAsTyped = (name: string, query: string): boolean => asTyped(name).startsWith(asTyped(query));

/**
 * A card name (or a query) as one string of its letters and digits, the way name words are
 * matched: accents, case, spaces and punctuation dropped (`G-Falcon` → `gfalcon`, as the engine
 * reads a typed `G-Fa`: `gfa`), any other character (a symbol: `∀`) as `u` and its code point in
 * hex, which the engine would otherwise drop.
 */
export const compactName = (name: string): string =>
  fold(name).replace(/[\s\p{P}]+/gu, '').replace(/[^\p{L}\p{N}]/gu, (c) => `u${c.codePointAt(0)!.toString(16)}`);

/** Characters of a compact name before the marker of its name words. */
const NAME_WORD_HEAD = 3;

/** A compact name's head, the marker, then each further character followed by `_`. */
const marked = (name: string, marker: string): string => {
  const compact = compactName(name);
  if (compact.length < NAME_WORD_HEAD) return `${compact}${marker}`;
  return `${compact.slice(0, NAME_WORD_HEAD)}${marker}${[...compact.slice(NAME_WORD_HEAD)].map((c) => `${c}_`).join('')}`;
};

/**
 * A card's name as one indexed word that rules text never holds: its compact form (compactName),
 * its first three characters, `_`, then each further character followed by `_` (`Agumon` →
 * `agu_m_o_n_`, `G-Falcon` → `gfa_l_c_o_n_`, `0 Gundam` → `0gu_n_d_a_m_`; shorter names end in `_`:
 * `K` → `k_`); a card's own words hold no `_` (the build drops it from them). The same function
 * of a query is a prefix of exactly the name words of the names that start with the query
 * (`Agum` → `agu_m_`), which the engine matches as a prefix, whatever punctuation, spaces or
 * symbols the names hold; searched as an exact word (quoted), it finds the cards of exactly that
 * name. Every such word ends in `_`, so the engine's English stemmer leaves it as it is: stemmed,
 * `pil_e` (`Pile`) became `pil_` and found `Pillomon` first.
 * The marker sits after three characters, not first, so that these words sort beside the name's
 * own first word: a query's name words are in the index chunk its ordinary words are in, not in
 * chunks of their own (which would be one more download on a first query).
 */
export const nameWord = (name: string): string => marked(name, '_');

/**
 * The word only the first card of each name (by compactName) carries besides its name word:
 * `agu__m_o_n_`. The same function of a query prefix-matches one card of each name the query starts,
 * so a search lists the query's completions once each (a name word search lists every card of
 * them), whose names are then read from a handful of hits. Never matched by a query's name word,
 * nor the reverse: after the head, `__` against `_` and a letter.
 */
export const nameEntryWord = (name: string): string => marked(name, '__');

/**
 * A card's record URL in an index: `/#`, then its hit JSON as the URL's fragment. Clients take the
 * hit from a result's `raw_url` (searchRecordHit); the index keeps no other copy of it. The engine
 * stores the URL as given, so the hit goes in as written with only `%` escaped (all
 * decodeURIComponent needs to give it back); percent-encoded, its quotes, spaces and punctuation
 * took three bytes each, its non-ASCII characters nine, and its rules text no longer matched the
 * same words in the fragment's content, which compression shares (fragment files 17 % larger).
 * The hit holds the id, so the URL needs no path to differ from every other card's (the engine
 * keeps one record per URL).
 */
export const searchRecordUrl = (hitJson: string): string => `/#${hitJson.replaceAll('%', '%25')}`;

/** The hit JSON text of a record URL (searchRecordUrl). */
export const searchRecordHit = (url: string): string => decodeURIComponent(url.slice(url.indexOf('#') + 1));

/** Where the gateway serves search: the descriptor, and each version's files below it. */
export const SEARCH_PATHS = {
  descriptor: (name: string) => `/v1/search/${name}`,
  base: (name: string, version: string) => `/v1/search/${name}/${version}/`,
} as const;

/** The file of an index holding its unique card names (for typo-tolerant name matching). */
export const SEARCH_NAMES_FILE = 'names.json';
/** The fuzzy name matcher's module (MiniSearch 7, ES module) shipped in every index. */
export const SEARCH_FUZZY_MODULE = 'minisearch.js';
/** The engine's entry module, relative to a version's base URL. */
export const SEARCH_ENTRY_MODULE = 'pagefind.js';
/** The engine's web worker (a classic script): browsers run the engine in it. */
export const SEARCH_WORKER_SCRIPT = 'pagefind-worker.js';
/** The engine's entry file: the index's languages, and the WebAssembly each one runs (`wasm.<name>.pagefind`). */
export const SEARCH_ENGINE_ENTRY = 'pagefind-entry.json';
/** The engine's WebAssembly (gzipped): the build indexes English; `unknown` is the engine's build for any other language. */
export const SEARCH_WASM_FILES = ['wasm.en.pagefind', 'wasm.unknown.pagefind'] as const;

/** Every file of an index that runs as code: its ES modules, the worker script and the WebAssembly. */
export type SearchCodeFile = typeof SEARCH_ENTRY_MODULE | typeof SEARCH_FUZZY_MODULE | typeof SEARCH_WORKER_SCRIPT | (typeof SEARCH_WASM_FILES)[number];

/**
 * The SHA-256 of each file of an index that runs as code, for the engine versions pinned above
 * (the bytes `pagefind` 1.6.0 and `minisearch` 7.2.0 write, whatever the cards). A client runs
 * one only when its bytes hash to this, checked before it runs (search-engine.ts, used by
 * @snapdeck/client and the /search page alike, in Node and in browsers): code that a gateway, a
 * CDN or anything between them serves runs in a partner's process or page only if it is the
 * engine this contract names. The build refuses to publish others. Upgrading an engine means
 * updating these with it.
 */
export const SEARCH_MODULE_SHA256: Readonly<Record<SearchCodeFile, string>> = {
  [SEARCH_ENTRY_MODULE]: '02746cc529f88f853275720dcb1c2b6a18b0c7a92b73fae82ca2738e64500bcd',
  [SEARCH_WORKER_SCRIPT]: '78115e3651f11d29f03a1f3eb2776a7901c22532bdfa23b7ae73c693c0867bda',
  'wasm.en.pagefind': 'ccf429efc12b42cf2131ebe40fab328559bf0091f06c8f8b8b06a117edf4fcaa',
  'wasm.unknown.pagefind': '7add525659192e7baf940ef743cc052098e5fc45c94462179a59376d5d1bdc74',
  [SEARCH_FUZZY_MODULE]: 'be655f42574cbfc32f7143d8f9ed20d287a98f70d76fe16e7d422918174b5c04',
};

/** Each public game's searchIndexName (games.ts names them), by slug. */
export const SEARCH_INDEX_NAMES = Object.fromEntries(GAMES.map((game) => [game.slug, game.searchIndexName])) as Readonly<Record<GameSlug, string>>;
