/**
 * The steps of test/generated/deck-feed-model.test.ts, as fast-check arbitraries: imports (new
 * decks, edits, updatedAt earlier than anything before, equal to another deck's, in the future;
 * privatizations, deletions, moves to another game), publishes (each gateway advanced or not),
 * gateways advanced, removals pruned, and syncs (through either gateway, with a key of any scope,
 * the gateway possibly moving forward between two requests, pages of 1, 2 or 1,000 changes).
 */
import fc from 'fast-check';

export const SLOTS = 8;
export type When = 'earliest' | 'equal' | 'future' | 'later' | 'random';
export type Line = { slot: number; op: 'upsert'; visibility: 'public' | 'private'; when: When; moved: boolean } | { slot: number; op: 'delete' };
export type Gateway = 'A' | 'B';
export type Step =
  | { kind: 'import'; lines: Line[] }
  | { kind: 'publish'; advance: Gateway | 'both' | 'none' }
  | { kind: 'advance'; gateway: Gateway }
  | { kind: 'prune'; keepDays: number; aheadDays: number }
  | { kind: 'sync'; gateway: Gateway; key: 'full' | 'browse' | 'none'; advanceAfter: number | null; limit: number };

const line: fc.Arbitrary<Line> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      slot: fc.nat({ max: SLOTS - 1 }),
      op: fc.constant('upsert' as const),
      visibility: fc.constantFrom('public' as const, 'public' as const, 'private' as const),
      when: fc.constantFrom<When>('earliest', 'equal', 'future', 'later', 'random'),
      moved: fc.boolean().map((b) => b && Math.random() < 0.3),
    }),
  },
  { weight: 1, arbitrary: fc.record({ slot: fc.nat({ max: SLOTS - 1 }), op: fc.constant('delete' as const) }) },
);

export const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.array(line, { minLength: 1, maxLength: 4 }).map((lines) => ({ kind: 'import' as const, lines })) },
  { weight: 3, arbitrary: fc.constantFrom<Gateway | 'both' | 'none'>('A', 'B', 'both', 'none').map((advance) => ({ kind: 'publish' as const, advance })) },
  { weight: 1, arbitrary: fc.constantFrom<Gateway>('A', 'B').map((gateway) => ({ kind: 'advance' as const, gateway })) },
  { weight: 1, arbitrary: fc.record({ keepDays: fc.nat({ max: 2 }), aheadDays: fc.nat({ max: 4 }) }).map((p) => ({ kind: 'prune' as const, ...p })) },
  {
    weight: 4,
    arbitrary: fc
      .record({
        gateway: fc.constantFrom<Gateway>('A', 'B'),
        key: fc.constantFrom('full' as const, 'full' as const, 'full' as const, 'full' as const, 'full' as const, 'browse' as const, 'none' as const),
        advanceAfter: fc.option(fc.integer({ min: 1, max: 4 }), { freq: 3 }),
        limit: fc.constantFrom(1, 2, 1000),
      })
      .map((s) => ({ kind: 'sync' as const, ...s })),
  },
);
