/**
 * bench:search's query sets on a real catalog and what they measure (docs/benchmarks.md "Search"):
 * every distinct card name once (exact, lower-case), its prefix, a seeded one-letter typo, and
 * every card id, each through @snapdeck/client's SearchIndex.search against a real gateway.
 */
import { CARD_MODELS, type GameSlug } from '@snapdeck/contract';
import type { SearchIndex } from '@snapdeck/client';
import { prng } from '../../lib/deck-generator.ts';

export type Kind = 'exact' | 'lower' | 'prefix' | 'shortest' | 'typo' | 'id';
export const KINDS: readonly Kind[] = ['exact', 'lower', 'prefix', 'shortest', 'typo', 'id'];

/** The figures' definitions, printed under the table. */
export const DEFINITIONS: Readonly<Record<Kind, string>> = {
  exact: 'recall@5, every distinct name typed as it is: a card of that name among the first 5 hits',
  lower: 'recall@5, every distinct name in lower case',
  prefix: 'recall@5, the name typed as far as the first 4 characters of its last word (split at spaces) of 5 characters or more: a card of that name among the first 5; prefixes that more than 5 distinct names start with left out',
  shortest: 'recall@1, the same prefixes: the first hit is a card of a shortest name the prefix starts (case and accents aside)',
  typo: 'recall@5, names with a word of 6+ letters: one seeded edit (substitution, deletion, insertion or transposition of two neighbours) in the longest word, never of its first letter',
  id: 'recall@1, every card id: the first hit is that card',
};

const fold = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The name typed as far as the first 4 characters of its last space-separated word, when that word has 5 or more; else null. */
export function prefixOf(name: string): string | null {
  const start = name.lastIndexOf(' ') + 1;
  return name.length - start >= 5 ? name.slice(0, start + 4) : null;
}

/** One edit inside the name's longest word, never of its first letter: substitute, delete, insert, or swap two neighbours. */
export function typoOf(name: string, next: () => number): string {
  const word = [...name.matchAll(/[\p{L}\p{N}]+/gu)].map((m) => m[0]).sort((a, b) => b.length - a.length)[0]!;
  const kind = Math.floor(next() * 4);
  const letter = 'abcdefghijklmnopqrstuvwxyz'[Math.floor(next() * 26)]!;
  // Positions 1 .. length-1 (a swap: of i and i+1, i from 1 .. length-2).
  const i = 1 + Math.floor(next() * (kind === 3 ? word.length - 2 : word.length - 1));
  const edited =
    kind === 0 ? word.slice(0, i) + (letter === word[i]!.toLowerCase() ? (letter === 'a' ? 'b' : 'a') : letter) + word.slice(i + 1)
    : kind === 1 ? word.slice(0, i) + word.slice(i + 1)
    : kind === 2 ? word.slice(0, i) + letter + word.slice(i)
    : word[i] === word[i + 1] ? word.slice(0, i) + (word[i] === 'a' ? 'b' : 'a') + word.slice(i + 1) : word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
  return name.replace(word, edited);
}

export interface Query {
  kind: Kind;
  query: string;
  /** Whether the hits answer it. */
  answered(hits: ReadonlyArray<{ id: string; name: string }>): boolean;
}

/** Every query of a catalog's cards, in a fixed order (the typos seeded). */
export function queriesOf(cards: ReadonlyArray<{ id: string; name: string }>): Query[] {
  const names = [...new Set(cards.map((card) => card.name))];
  const rand = prng(1919);
  const has = (name: string, limit: number) => (hits: ReadonlyArray<{ name: string }>) => hits.slice(0, limit).some((hit) => fold(hit.name) === fold(name));
  const queries: Query[] = [];
  for (const name of names) {
    queries.push({ kind: 'exact', query: name, answered: has(name, 5) });
    queries.push({ kind: 'lower', query: name.toLowerCase(), answered: has(name, 5) });
    const prefix = prefixOf(name);
    const starting = prefix === null ? [] : [...new Set(names.map(fold).filter((other) => other.startsWith(fold(prefix))))];
    if (prefix !== null && starting.length <= 5) {
      queries.push({ kind: 'prefix', query: prefix, answered: has(name, 5) });
      const length = Math.min(...starting.map((other) => other.length));
      const shortest = new Set(starting.filter((other) => other.length === length));
      queries.push({ kind: 'shortest', query: prefix, answered: (hits) => hits[0] !== undefined && shortest.has(fold(hits[0].name)) });
    }
    if (/[\p{L}]{6,}/u.test(name)) queries.push({ kind: 'typo', query: typoOf(name, rand), answered: has(name, 5) });
  }
  for (const card of cards) queries.push({ kind: 'id', query: card.id, answered: (hits) => hits[0]?.id === card.id });
  return queries;
}

export interface Measured {
  /** Hits and queries per kind. */
  counts: Record<Kind, [number, number]>;
  /** Each query's latency (ms). */
  ms: number[];
  /** Queries not answered, per kind (for the report). */
  misses: Record<Kind, string[]>;
}

/** Runs every query of `cards` on an opened index (top 5 hits each), one after another. */
export async function measure(game: GameSlug, index: SearchIndex<GameSlug>, cards: ReadonlyArray<{ id: string; name: string }>): Promise<Measured> {
  const counts = Object.fromEntries(KINDS.map((kind) => [kind, [0, 0]])) as Record<Kind, [number, number]>;
  const misses = Object.fromEntries(KINDS.map((kind) => [kind, []])) as unknown as Record<Kind, string[]>;
  const ms: number[] = [];
  const nameOf = (hit: unknown) => CARD_MODELS[game].nameOf(hit as never);
  for (const query of queriesOf(cards)) {
    const started = performance.now();
    const found = await index.search(query.query, { limit: 5 });
    ms.push(performance.now() - started);
    const hits = found.hits.map((hit) => ({ id: (hit as { id: string }).id, name: nameOf(hit) }));
    counts[query.kind][1] += 1;
    if (query.answered(hits)) counts[query.kind][0] += 1;
    else misses[query.kind].push(`${JSON.stringify(query.query)} → ${hits.map((hit) => hit.name).join(' | ') || '(none)'}`);
  }
  return { counts, ms, misses };
}
