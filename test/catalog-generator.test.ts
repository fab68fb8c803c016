/**
 * The seeded catalog generator (scripts/generate-catalog.ts, scripts/catalog/<game>.ts) against the
 * contract: every generated card is a valid card of its game, and its hit a valid hit. (Kept out of
 * packages/contract: the contract's own tests do not depend on scripts.)
 */
import { describe, expect, it } from 'vitest';
import { CARD_MODELS, GAME_SLUGS } from '@snapdeck/contract';
import { generateCatalog } from '../scripts/generate-catalog.ts';

describe.each(GAME_SLUGS)('generated %s cards', (game) => {
  it('are valid cards of the game, and their hits valid hits', () => {
    const model = CARD_MODELS[game];
    for (const generated of generateCatalog({ game, count: 400, seed: 11 })) {
      const parsed = model.card.safeParse(generated);
      if (!parsed.success) throw new Error(`${generated.id}: ${parsed.error.message}`);
      expect(model.hit.safeParse(model.toHit(parsed.data)).success).toBe(true);
    }
  });
});
