import { describe, expect, it } from 'vitest';
import { hitProjection } from './hit.ts';

describe('hitProjection', () => {
  const toHit = hitProjection({ id: 0, name: 0, cardArts: 0, cost: 0 });
  const card = {
    cost: 3,
    secret: 'not in the hit',
    name: 'Agumon',
    id: 'BT1-010',
    cardArts: [{ id: 'BT1-010', type: 'Normal', url: 'https://x.test/a.webp', illustrator: 'sasasi' }],
  };

  it("keeps the shape's fields in the shape's order, cardArts last, whatever the card's order", () => {
    expect(JSON.stringify(toHit(card))).toBe(
      '{"id":"BT1-010","name":"Agumon","cost":3,"cardArts":[{"id":"BT1-010","type":"Normal","url":"https://x.test/a.webp"}]}',
    );
  });

  it('leaves the card as it was', () => {
    toHit(card);
    expect(card.cardArts[0]).toHaveProperty('illustrator', 'sasasi');
    expect(card).toHaveProperty('secret');
  });
});
