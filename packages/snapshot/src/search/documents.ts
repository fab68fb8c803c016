import { CARD_MODELS, SEARCH_FIELDS, compactName, facetValues, idWord, nameEntryWord, nameWord, searchRecordUrl, type GameSlug } from '@snapdeck/contract';

/**
 * A card as the search engine indexes it (decisions.md "Search"): the name's words weighted
 * highest, the id and card numbers next (matched as whole words), the rules text lowest; the
 * game's facet fields as filters; the name as the result's title and the whole hit in its URL.
 *
 * A custom record of Pagefind's Node API (no HTML to parse). The hit rides in the URL, not in the
 * record's metadata: Pagefind (1.5+) indexes every metadata field's words, so a hit there put all
 * its words in the index a second time (the build took twice as long, the first query's index
 * chunks were larger); the URL is stored in the card's fragment only.
 */
export interface SearchRecord {
  id: string;
  name: string;
  url: string;
  content: string;
  meta: Record<string, string>;
  filters: Record<string, string[]>;
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string').join(' / ');
  return '';
}

/** Weights Pagefind gives each part (1 is ordinary text, 10 the most). */
const WEIGHT = { name: 10, number: 9, text: 1 } as const;

/**
 * A weighted part of a record's content, in the markers Pagefind's own HTML parser writes for
 * `data-pagefind-weight` (its indexer reads them from a custom record's content the same way).
 * A card's own words hold no `_`: none starts a weight marker, and none is a name word
 * (nameWord), whose `_` says it is ours; ids and card numbers end in one (idWord).
 */
const weighted = (weight: number, text: string) => ` ___PAGEFIND_WEIGHT___${weight} ${text} ___END_PAGEFIND_WEIGHT___ `;
const ownWords = (text: string) => text.replace(/_+/g, ' ');

/**
 * Each word of a card's rules text once (the first spelling of each, case aside), in order. A
 * name query ranks by the name; what the rules text adds is whether a word is there at all, and
 * repeated words ("Digimon", "your", "[When Digivolving]") cost Pagefind's indexer time and the
 * index chunks bytes: at 100,000 cards, 94 → 74 s to add the records and 11.0 → 8.0 MB of index
 * chunks (bench:search's generated catalog).
 */
function uniqueWords(text: string): string {
  const seen = new Set<string>();
  const words: string[] = [];
  for (const word of text.split(/\s+/u)) {
    const key = word.toLowerCase();
    if (word === '' || seen.has(key)) continue;
    seen.add(key);
    words.push(word);
  }
  return words.join(' ');
}

/**
 * The indexed record of one card, from its hit JSON. `namesListed`: the names (compactName) whose
 * first card was indexed already; the first card of a name also gets its entry word
 * (nameEntryWord), and its name is added.
 */
export function searchRecord(game: GameSlug, hitJson: Uint8Array, namesListed: Set<string>): SearchRecord {
  const text = Buffer.from(hitJson).toString('utf8');
  const hit = JSON.parse(text) as Record<string, unknown> & { id: string };
  const fields = SEARCH_FIELDS[game];
  const name = CARD_MODELS[game].nameOf(hit as never);
  const numbers = [...new Set([hit.id, ...fields.numbers.map((f) => textOf(hit[f]))].filter(Boolean))];
  // Pagefind indexes "BT1-001_" and "aesan-burn-2_" (idWord) as their parts and as one word
  // (compactId), which an id typed whole searches exactly. The name word (nameWord) is what a
  // query's name word prefix-matches: the names the query starts.
  const key = compactName(name);
  const compact = [nameWord(name), ...(namesListed.has(key) ? [] : [nameEntryWord(name)])];
  namesListed.add(key);
  const rules = uniqueWords(ownWords(fields.text.map((f) => textOf(hit[f])).join(' ')));
  const filters: Record<string, string[]> = {};
  for (const facet of fields.facets) {
    const values = facetValues(hit[facet.field]);
    if (values.length > 0) filters[facet.field] = values;
  }
  const content = [
    weighted(WEIGHT.name, ownWords(name)),
    weighted(WEIGHT.number, [...numbers.map(idWord), ...compact].join(' ')),
    rules === '' ? '' : weighted(WEIGHT.text, rules),
  ].join('');
  return { id: hit.id, name, url: searchRecordUrl(text), content, meta: { title: name }, filters };
}
