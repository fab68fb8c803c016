/**
 * What every game's catalog generator shares (scripts/generate-catalog.ts drives them): the set
 * plan each fills with cards numbered 1..size, and small formatting helpers.
 */
import type { Rng } from '../lib/prng.ts';

/** A set the generator fills with cards numbered 1..size. */
export interface SetSpec {
  id: string;
  name: string;
  size: number;
  /** Width of the number after the dash: ST1-01 has 2, BT1-010 has 3. */
  digits: number;
  kind: 'booster' | 'starter' | 'promo' | 'special';
}

export const pad = (n: number, digits: number) => String(n).padStart(digits, '0');
export const cardNumber = (set: SetSpec, n: number) => `${set.id}-${pad(n, set.digits)}`;
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Sets of a plan, then an endless continuation of made-up sets in the same style. */
export function* withContinuation(plan: readonly SetSpec[], next: (k: number) => SetSpec | undefined): Generator<SetSpec> {
  yield* plan;
  for (let k = 1; ; k += 1) {
    const set = next(k);
    if (!set) return;
    yield set;
  }
}

/** One game's generator: its real set plan, its sets (the plan, then made-up ones), and card N of a set. */
export interface GameGenerator<Card> {
  plan: readonly SetSpec[];
  sets(): Iterable<SetSpec>;
  /** A card maker for one catalog (state such as slugs already used lives in it). */
  cards(): (rng: Rng, set: SetSpec, n: number) => Card;
  /**
   * Card numbers of the plan left out of the catalog: real cards whose real data gives no name,
   * which the catalog does not invent (an export prints their id, the missing-card rule).
   */
  absent?: ReadonlySet<string>;
}
