/**
 * The guard for a class of defect (a zone id `constructor` answered 500): every function of
 * packages/ that takes an untrusted string and looks something up with it is given each property
 * name of Object.prototype (`__proto__`, `constructor`, `toString`, …) and must treat it as the
 * unknown string it is: nothing inherited is found, nothing is written to a prototype. A new lookup
 * over untrusted text belongs in this table.
 */
import { describe, expect, it } from 'vitest';
import { GAME_SLUGS, findGame, isDeckSort, isGameSlug } from '@snapdeck/contract';
import { deckText, gaTts, isRecognizedZone, limitlessText, needsCatalog, resolveZoneId, snapdeckText, zoneGroups, zoneLabel } from '@snapdeck/store';
import { PROPERTY_NAMES } from './helpers/hostile-corpus.ts';

const capitalised = (id: string) => id.split('-').map((w) => (w ? w.charAt(0).toUpperCase() + w.slice(1) : w)).join('-');

describe.each(PROPERTY_NAMES)('the untrusted string %j', (name) => {
  it('is no game, no sort', () => {
    expect(findGame(name)).toBeUndefined();
    expect(isGameSlug(name)).toBe(false);
    expect(isDeckSort(name)).toBe(false);
  });

  it('as a zone: unrecognised in every game, labelled by its own words, resolved per decisions.md', () => {
    expect(zoneLabel(name)).toBe(capitalised(name));
    for (const game of GAME_SLUGS) {
      expect(isRecognizedZone(game, name)).toBe(false);
      const byType = findGame(game)!.zoneByCardType !== undefined;
      expect(needsCatalog(game, name)).toBe(byType);
      // As a stored zone: kept where the game keeps unknown zones, otherwise resolved (main).
      expect(resolveZoneId(game, name, null)).toBe(byType ? 'main' : name);
      // As a catalog card type (catalog text): never a zone of its own.
      expect(resolveZoneId(game, null, name)).toBe('main');
    }
  });

  it('as a zone of a deck: grouped, exported and ga-tts-zoned under its own name, prototypes untouched', () => {
    const cards = [
      { cardId: 'a-card', quantity: 2, zoneId: 'main' },
      { cardId: 'b-card', quantity: 1, zoneId: name },
    ];
    const names = new Map([['a-card', 'A'], ['b-card', 'B']]);
    expect(zoneGroups({ gameId: 'gundam', cards }).map((g) => [g.zoneId, g.cards.length])).toEqual([['main', 1], [name, 1]]);
    expect(deckText({ gameId: 'gundam', cards }, names)).toBe(`// Main Deck\n2 A (a-card)\n// ${capitalised(name)}\n1 B (b-card)\n`);
    expect(deckText({ gameId: 'grand-archive', cards }, names)).toBe(`# Main Deck\n2 A\n\n# ${capitalised(name)}\n1 B\n`);
    expect(snapdeckText({ gameId: 'gundam', cards }, names)).toBe('2 A (GUN) (a-card)\n1 B (GUN) (b-card)\n');
    expect(limitlessText({ gameId: 'gundam', cards }, names)).toBe('2 A a-card\n1 B b-card\n');
    const tts = gaTts({ id: 'd', name: 'n', cards }, new Map());
    expect(Object.getPrototypeOf(tts.zones)).toBe(Object.prototype);
    expect(Object.hasOwn(tts.zones, name)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(tts.zones, name)!.value).toEqual([{ cardId: 'b-card', quantity: 1, name: 'b-card', imageUrl: null, card: null }]);
    expect(Object.keys(tts.zones)).toEqual(['main', 'material', 'references', 'sideboard', name]);
    expect(JSON.parse(JSON.stringify(tts)).zones[name]).toHaveLength(1);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual([...PROPERTY_NAMES].sort());
  });
});
