import { CARD_MODELS, SEARCH_FIELDS, compactId, facetValues, type GameSlug } from '@snapdeck/contract';

/**
 * A card as the search engine indexes it (decisions.md "Search"): the name's words weighted
 * highest, the id and card numbers next (matched as whole words), the rules text lowest; the
 * game's facet fields as filters; the whole hit as the result's metadata.
 */
export interface SearchDocument {
  id: string;
  name: string;
  html: string;
}

const ESCAPES = new Map([['&', '&amp;'], ['<', '&lt;'], ['>', '&gt;'], ['"', '&quot;']]);
const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ESCAPES.get(c)!);

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string').join(' / ');
  return '';
}

/** Weights Pagefind gives each part (1 is ordinary text, 10 the most). */
const WEIGHT = { name: 10, number: 9, text: 1 } as const;

/** The indexed document of one card, from its hit JSON. */
export function searchDocument(game: GameSlug, hitJson: Uint8Array): SearchDocument {
  const hit = JSON.parse(Buffer.from(hitJson).toString('utf8')) as Record<string, unknown> & { id: string };
  const fields = SEARCH_FIELDS[game];
  const name = CARD_MODELS[game].nameOf(hit as never);
  const numbers = [...new Set([hit.id, ...fields.numbers.map((f) => textOf(hit[f]))].filter(Boolean))];
  // Pagefind splits "BT1-001" and "aesan-burn-2" into words; the compact form is one word, so an
  // id typed whole finds that card first (the client searches it: SEARCH_COMPACT).
  const compact = [...new Set(numbers.map(compactId))];
  const rules = fields.text.map((f) => textOf(hit[f])).filter(Boolean);
  const filters = fields.facets.flatMap((facet) => facetValues(hit[facet.field]).map((value) =>
    `<span data-pagefind-filter="${escapeHtml(facet.field)}">${escapeHtml(value)}</span>`));
  const html = [
    '<html lang="en"><body>',
    `<h1 data-pagefind-weight="${WEIGHT.name}">${escapeHtml(name)}</h1>`,
    `<p data-pagefind-weight="${WEIGHT.number}">${[...numbers, ...compact].map(escapeHtml).join(' ')}</p>`,
    ...rules.map((text) => `<p data-pagefind-weight="${WEIGHT.text}">${escapeHtml(text)}</p>`),
    // Ignored for words, kept for filters and metadata.
    `<div data-pagefind-ignore>${filters.join('')}`,
    `<span data-pagefind-meta="id">${escapeHtml(hit.id)}</span>`,
    `<span data-pagefind-meta="hit">${escapeHtml(JSON.stringify(hit))}</span></div>`,
    '</body></html>',
  ].join('');
  return { id: hit.id, name, html };
}
