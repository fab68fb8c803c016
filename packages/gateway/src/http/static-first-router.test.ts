import { describe, expect, it } from 'vitest';
import { StaticFirstRouter } from './static-first-router.ts';

/** The handlers a match yields, with their parameters read the way Hono reads either result form. */
function matched(router: StaticFirstRouter<string>, method: string, path: string): Array<[string, Record<string, string>]> {
  const [handlers, stash] = router.match(method, path) as [Array<[string, Record<string, string | number>]>, string[]?];
  return handlers.map(([handler, params]) => [handler, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, stash ? stash[v as number]! : (v as string)]))]);
}

describe('StaticFirstRouter', () => {
  const router = new StaticFirstRouter<string>();
  router.add('GET', '/v1/decks/public', 'list');
  router.add('POST', '/v1/decks/details', 'details');
  router.add('GET', '/v1/decks/:deckId', 'deck');
  router.add('GET', '/v1/decks/:deckId/text', 'text');
  router.add('GET', '/v1/games', 'games');
  router.add('GET', '/v1/games/:slug/cards/:cardId', 'card');

  it('takes a literal route beside a parameter (RegExpRouter alone refuses that table)', () => {
    expect(matched(router, 'GET', '/v1/decks/public')).toEqual([['list', {}]]);
    expect(matched(router, 'GET', '/v1/decks/3f1c2a4e-1111-4222-8333-444455556666')).toEqual([['deck', { deckId: '3f1c2a4e-1111-4222-8333-444455556666' }]]);
    expect(matched(router, 'GET', '/v1/decks/abc/text')).toEqual([['text', { deckId: 'abc' }]]);
    expect(matched(router, 'GET', '/v1/games/digimon/cards/BT1-001')).toEqual([['card', { slug: 'digimon', cardId: 'BT1-001' }]]);
  });

  it('matches a literal route by its method and exact path only', () => {
    expect(matched(router, 'GET', '/v1/decks/details')).toEqual([['deck', { deckId: 'details' }]]);
    expect(matched(router, 'POST', '/v1/decks/details')).toEqual([['details', {}]]);
    expect(matched(router, 'GET', '/v1/games/')).toEqual([]);
    expect(matched(router, 'GET', '/v1/Games')).toEqual([]);
    expect(matched(router, 'POST', '/v1/games')).toEqual([]);
  });

  it('refuses a route for every method (app.use, app.all), which it could not run beside a literal route', () => {
    expect(() => new StaticFirstRouter<string>().add('ALL', '/v1/games', 'mw')).toThrow(/one method only/);
  });
});
