import { describe, expect, it } from 'vitest';
import { CARD_ID_PATTERN, GAME_SLUGS, findGame, type GameSlug } from '../games.ts';
import {
  CARD_MODELS,
  CHRONO_CORE_CARD_TYPES,
  DIGIMON_CARD_TYPES,
  digimonTimingsOf,
  type ChronoCoreCard,
  type DigimonCard,
  type GrandArchiveCard,
  type GundamCard,
} from './index.ts';

const digimonCard: DigimonCard = {
  id: 'BT1-010',
  cardNumber: 'BT1-010',
  objectID: 'BT1-010',
  name: { english: 'Agumon' },
  color: ['Red'],
  cardType: 'Digimon',
  dp: 2000,
  playCost: 3,
  level: 3,
  rarity: 'R',
  attribute: 'Vaccine',
  form: 'Rookie',
  type: 'Reptile',
  effect: '[On Play] Reveal the top 5 cards of your deck. Add 1 Tamer card among them to the hand.',
  inheritedEffect: '[Your Turn] While this Digimon has 4 or more digivolution cards, it gets +2000 DP.',
  securityEffect: null,
  aceEffect: null,
  linkDp: null,
  hasLink: false,
  linkCondition: null,
  linkEffect: null,
  specialDigivolve: null,
  specialDigivolutionConditions: null,
  digivolveCondition: [{ color: ['Red'], cost: 0, level: 2 }],
  setId: 'BT1',
  setName: 'BT-01: Booster New Evolution',
  setOrder: 10,
  productOrigin: '25th Special Memorial Pack',
  timings: ['On Play', 'Your Turn'],
  illustrator: 'Kenji Watanabe',
  cardImageUrl: 'https://digimoncard.app/assets/images/cards/BT1-010.webp',
  imageSourceUrl: 'https://world.digimoncard.com/images/cardlist/card/BT1-010.png',
  hasAltArt: true,
  cardArts: [
    { id: 'BT1-010', type: 'Normal', url: 'https://digimoncard.app/assets/images/cards/BT1-010.webp' },
    {
      id: 'BT1-010_P1',
      type: 'Alternative Art',
      url: 'https://digimoncard.app/assets/images/cards/BT1-010_P1.webp',
      illustrator: 'sasasi',
      marketplaceProductId: 251034,
      pricingLabel: 'Agumon (Alternative Art)',
    },
  ],
  AAs: [
    {
      id: 'BT1-010_P1',
      type: 'Alternative Art',
      illustrator: 'sasasi',
      cardImageUrl: 'https://digimoncard.app/assets/images/cards/BT1-010_P1.webp',
      pricingLabel: 'Agumon (Alternative Art)',
      marketplaceProductId: 251034,
      productOrigin: 'Special Event Pack 2025',
    },
  ],
};

const gundamCard: GundamCard = {
  id: 'GD01-001',
  objectID: 'GD01-001',
  cardNumber: 'GD01-001',
  name: 'Gundam',
  cardType: 'Unit',
  color: ['Blue'],
  level: 4,
  cost: 3,
  ap: 3,
  hp: 3,
  rarity: 'LR',
  traits: ['Earth Federation', 'White Base Team'],
  linkCondition: '[Amuro Ray]',
  keywords: [{ keyword: 'Repair', value: 1 }],
  effect: 'All your (White Base Team) Units gain <Repair 1>.\n【When Paired】If you have 2 or more other Units in play, draw 1.',
  timings: ['When Paired'],
  setId: 'GD01',
  setName: 'Newtype Rising',
  cardImageUrl: 'https://www.gundam-gcg.com/en/images/cards/card/GD01-001.webp?260612',
  hasAltArt: true,
  terrain: ['Space', 'Earth'],
  linkRefs: ['Amuro Ray'],
  sourceTitle: 'Mobile Suit Gundam',
  block: '1',
  setOrder: 1,
  productOrigin: 'Newtype Rising [GD01]',
  detailUrl: 'https://www.gundam-gcg.com/en/cards/detail.php?detailSearch=GD01-001',
  cardArts: [
    { id: 'GD01-001', type: 'Standard', url: 'https://www.gundam-gcg.com/en/images/cards/card/GD01-001.webp?260612', rarity: 'LR', productOrigin: 'Newtype Rising [GD01]' },
    { id: 'GD01-001_p1', type: 'Parallel', url: 'https://www.gundam-gcg.com/en/images/cards/card/GD01-001_p1.webp?260612', rarity: 'LR +', productOrigin: 'Newtype Rising [GD01]' },
  ],
};

const gaCard: GrandArchiveCard = {
  id: 'absolving-flames',
  objectID: 'absolving-flames',
  name: 'Absolving Flames',
  types: ['ACTION'],
  subtypes: ['CLERIC', 'SPELL'],
  typeLine: 'ACTION',
  classes: ['CLERIC'],
  element: 'FIRE',
  deckZone: 'main',
  cost: 3,
  costKind: 'reserve',
  level: null,
  effect: 'Draw a card.\n\n[Class Bonus] You may banish four fire element cards from your graveyard. If you do, draw a card.',
  setId: 'AMB',
  setName: 'Mortal Ambition',
  rarity: 'C',
  cardImageUrl: 'https://ga-index-public.s3.us-west-2.amazonaws.com/cards/absolving-flames-amb.jpg',
  hasAltArt: false,
  uuid: '3fbpyhm271',
  power: null,
  life: null,
  durability: null,
  speed: 'Slow',
  illustrator: 'Dragonart',
  cardArts: [
    {
      id: 'absolving-flames-amb',
      type: 'Standard',
      url: 'https://ga-index-public.s3.us-west-2.amazonaws.com/cards/absolving-flames-amb.jpg',
      setId: 'AMB',
      setName: 'Mortal Ambition',
      collectorNumber: '094',
      rarity: 'C',
      illustrator: 'Dragonart',
    },
  ],
};

const chronoCard: ChronoCoreCard = {
  id: 'WNR01-002',
  objectID: 'WNR01-002',
  cardNumber: 'WNR01-002',
  name: 'Basilisk Core V.1',
  cardType: 'Core',
  slot: 'Frame',
  traits: ['Basilisk'],
  cost: 0,
  power: 2,
  health: 7,
  effect: '[Passive] Your mech gets +1 power until end of turn.',
  rarity: 'R',
  setId: 'WNR01',
  setName: 'WNR01 Booster',
  setOrder: 2,
  cardImageUrl: 'https://cdn.sleeved.gg/cards/chrono-core/WNR01/WNR01-002.webp',
  hasAltArt: false,
  cardArts: [{ id: 'WNR01-002', type: 'Standard', url: 'https://cdn.sleeved.gg/cards/chrono-core/WNR01/WNR01-002.webp' }],
};

const VALID: Record<GameSlug, Record<string, unknown> & { id: string }> = {
  digimon: digimonCard,
  gundam: gundamCard,
  'grand-archive': gaCard,
  'chrono-core': chronoCard,
};

const clone = <T>(value: T): T => structuredClone(value);
const with_ = (card: object, patch: Record<string, unknown>) => ({ ...clone(card), ...patch });

describe.each(GAME_SLUGS)('%s card model', (game) => {
  const model = CARD_MODELS[game];
  const card = VALID[game];

  it('belongs to its game', () => {
    expect(model.game).toBe(game);
  });

  it('accepts a valid card unchanged', () => {
    expect(model.card.parse(card)).toEqual(card);
  });

  it('rejects an unknown key, at the top and in a card art', () => {
    expect(model.card.safeParse(with_(card, { price: 3 })).success).toBe(false);
    const arts = clone(card.cardArts) as Array<Record<string, unknown>>;
    arts[0] = { ...arts[0], extra: true };
    expect(model.card.safeParse(with_(card, { cardArts: arts })).success).toBe(false);
  });

  it('rejects a missing field', () => {
    const { cardImageUrl: _dropped, ...rest } = clone(card);
    expect(model.card.safeParse(rest).success).toBe(false);
  });

  it('rejects wrong types', () => {
    expect(model.card.safeParse(with_(card, { name: 42 })).success).toBe(false);
    expect(model.card.safeParse(with_(card, { cardImageUrl: 'not a url' })).success).toBe(false);
    expect(model.card.safeParse(with_(card, { hasAltArt: 'yes' })).success).toBe(false);
    expect(model.card.safeParse(with_(card, { cardArts: 'BT1-010' })).success).toBe(false);
  });

  it('rejects an objectID that differs from the id', () => {
    const result = model.card.safeParse(with_(card, { objectID: `${card.id}x` }));
    expect(result.success).toBe(false);
  });

  it("rejects ids outside the game's card-id pattern", () => {
    const bad = game === 'grand-archive' ? 'Absolving-Flames' : 'bt1-010';
    expect(model.card.safeParse(with_(card, { id: bad, objectID: bad, ...('cardNumber' in card ? { cardNumber: bad } : {}) })).success).toBe(false);
  });

  it('projects a hit that passes the hit schema and is a subset of the card', () => {
    const hit = model.toHit(card);
    expect(model.hit.parse(hit)).toEqual(hit);
    for (const key of ['id', 'objectID', 'name', 'cardImageUrl']) expect(hit).toHaveProperty(key);
    for (const [key, value] of Object.entries(hit)) {
      if (key === 'cardArts') continue;
      expect(card[key]).toEqual(value);
    }
  });

  it('does not accept a full card as a hit (hits are strict too)', () => {
    expect(model.hit.safeParse(card).success).toBe(false);
  });

  it('names and pictures a card', () => {
    expect(model.nameOf(card)).toMatch(/\S/);
    expect(model.imageUrlOf(card)).toBe(card.cardImageUrl);
  });
});

describe('digimon (interface.md §2.6 / §2.7)', () => {
  const { card, hit, toHit } = CARD_MODELS.digimon;

  it('serves exactly the §2.7 hit fields, with cardArts reduced to {id, type, url}', () => {
    const projected = toHit(digimonCard) as Record<string, unknown>;
    expect(Object.keys(projected).sort()).toEqual(
      [
        'id', 'cardNumber', 'objectID', 'name', 'color', 'cardType', 'dp', 'playCost', 'level', 'rarity', 'attribute', 'form', 'type',
        'effect', 'inheritedEffect', 'securityEffect', 'setId', 'setName', 'cardImageUrl', 'timings', 'hasAltArt', 'cardArts',
      ].sort(),
    );
    expect(projected.cardArts).toEqual([
      { id: 'BT1-010', type: 'Normal', url: 'https://digimoncard.app/assets/images/cards/BT1-010.webp' },
      { id: 'BT1-010_P1', type: 'Alternative Art', url: 'https://digimoncard.app/assets/images/cards/BT1-010_P1.webp' },
    ]);
  });

  it('requires id, cardNumber and objectID to be equal, in the card and in the hit', () => {
    expect(card.safeParse(with_(digimonCard, { cardNumber: 'BT1-011' })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { objectID: 'BT1-011' })).success).toBe(false);
    const projected = toHit(digimonCard);
    expect(hit.safeParse({ ...projected, cardNumber: 'BT1-011' }).success).toBe(false);
  });

  it('types the nullable fields: strings, and an integer linkDp', () => {
    for (const field of ['aceEffect', 'linkCondition', 'linkEffect', 'specialDigivolve', 'specialDigivolutionConditions', 'inheritedEffect', 'securityEffect']) {
      expect(card.safeParse(with_(digimonCard, { [field]: 3 })).success, field).toBe(false);
      expect(card.safeParse(with_(digimonCard, { [field]: '' })).success, `${field} empty`).toBe(false);
    }
    expect(card.safeParse(with_(digimonCard, { linkDp: '2000' })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { linkDp: 2000.5, hasLink: true })).success).toBe(false);
    const linked = with_(digimonCard, { linkDp: 2000, hasLink: true, linkCondition: '[Link] [Appmon] trait: Cost 1', linkEffect: '＜Raid＞' });
    expect(card.safeParse(linked).success).toBe(true);
  });

  it('rejects wrong types in §2.6 fields', () => {
    expect(card.safeParse(with_(digimonCard, { dp: '2000' })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { playCost: null })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { level: 3.5 })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { color: 'Red' })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { name: 'Agumon' })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { name: { english: 'Agumon', japanese: 'アグモン' } })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { digivolveCondition: [{ color: 'Red', cost: 0, level: 2 }] })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { setOrder: '10' })).success).toBe(false);
  });

  it('requires the extra members of an alternative art, all or none', () => {
    const arts = clone(digimonCard.cardArts) as Array<Record<string, unknown>>;
    delete arts[1]!.marketplaceProductId;
    expect(card.safeParse(with_(digimonCard, { cardArts: arts })).success).toBe(false);
    const aas = clone(digimonCard.AAs) as Array<Record<string, unknown>>;
    aas[0]!.marketplaceProductId = '251034';
    expect(card.safeParse(with_(digimonCard, { AAs: aas })).success).toBe(false);
  });

  it('keeps hasAltArt and hasLink consistent with the data', () => {
    expect(card.safeParse(with_(digimonCard, { hasAltArt: false })).success).toBe(false);
    expect(card.safeParse(with_(digimonCard, { hasLink: true })).success).toBe(false);
  });

  it('finds timing markers only at the start of effect lines', () => {
    expect(
      digimonTimingsOf([
        "[On Play] [When Digivolving] Delete 1 Digimon.\n[Your Turn] This Digimon doesn't activate [Security] effects.",
        'Inherited Effect [When Attacking] [Once Per Turn] ＜Draw 1＞',
        null,
        '[Security] Play this card without paying the cost.',
      ]),
    ).toEqual(['On Play', 'When Digivolving', 'Your Turn', 'When Attacking', 'Once Per Turn', 'Security']);
    expect(digimonTimingsOf(['[Greymon] in its name: [Hybrid] trait'])).toEqual([]);
  });
});

describe('gundam', () => {
  it('requires printing ids to extend the card number', () => {
    const arts = clone(gundamCard.cardArts);
    arts[1] = { ...arts[1]!, id: 'GD01-002_p1' };
    expect(CARD_MODELS.gundam.card.safeParse(with_(gundamCard, { cardArts: arts })).success).toBe(false);
  });

  it('allows null stats and rejects fractional ones', () => {
    expect(CARD_MODELS.gundam.card.safeParse(with_(gundamCard, { ap: null, hp: null })).success).toBe(true);
    expect(CARD_MODELS.gundam.card.safeParse(with_(gundamCard, { ap: 1.5 })).success).toBe(false);
  });
});

describe('grand-archive', () => {
  it('takes set, rarity and image from the first edition, and allows a card without editions', () => {
    expect(CARD_MODELS['grand-archive'].card.safeParse(with_(gaCard, { setId: 'DOA1E' })).success).toBe(false);
    const bare = with_(gaCard, { cardArts: [], setId: null, setName: null, rarity: null, illustrator: null });
    expect(CARD_MODELS['grand-archive'].card.safeParse(bare).success).toBe(true);
  });

  it('rejects an unknown class or deck zone', () => {
    expect(CARD_MODELS['grand-archive'].card.safeParse(with_(gaCard, { classes: ['BARD'] })).success).toBe(false);
    expect(CARD_MODELS['grand-archive'].card.safeParse(with_(gaCard, { deckZone: 'sideboard' })).success).toBe(false);
  });
});

describe('chrono-core', () => {
  it('has the loadout card types Core and Pilot (decisions.md "Zones")', () => {
    expect(CHRONO_CORE_CARD_TYPES).toEqual(expect.arrayContaining(['Core', 'Pilot']));
    expect(findGame('chrono-core')!.zoneByCardType).toEqual({ Core: 'loadout', Pilot: 'loadout' });
    expect(CARD_MODELS['chrono-core'].card.safeParse(with_(chronoCard, { cardType: 'Pilot', slot: null })).success).toBe(true);
    expect(CARD_MODELS['chrono-core'].card.safeParse(with_(chronoCard, { cardType: 'Mech' })).success).toBe(false);
  });

  it('requires the card number to start with the set id', () => {
    expect(CARD_MODELS['chrono-core'].card.safeParse(with_(chronoCard, { setId: 'SD01' })).success).toBe(false);
  });
});

describe('zones from card types (games.ts, decisions.md "Zones")', () => {
  it('digimon eggs go to digi-egg; gundam and grand-archive never consult the catalog', () => {
    expect(findGame('digimon')!.zoneByCardType).toEqual({ 'Digi-Egg': 'digi-egg' });
    expect(findGame('gundam')!.zoneByCardType).toBeUndefined();
    expect(findGame('grand-archive')!.zoneByCardType).toBeUndefined();
  });

  it('maps card types the game has to zones the game recognises', () => {
    const cardTypes: Partial<Record<GameSlug, readonly string[]>> = { digimon: DIGIMON_CARD_TYPES, 'chrono-core': CHRONO_CORE_CARD_TYPES };
    for (const slug of GAME_SLUGS) {
      const game = findGame(slug)!;
      for (const [cardType, zone] of Object.entries(game.zoneByCardType ?? {})) {
        expect(cardTypes[slug], `${slug} ${cardType}`).toContain(cardType);
        expect(game.zones, `${slug} ${zone}`).toContain(zone);
      }
    }
  });
});

describe('card id patterns (games.ts)', () => {
  const samples: Record<GameSlug, { good: string[]; bad: string[] }> = {
    digimon: { good: ['BT1-010', 'ST1-01', 'P-001', 'EX12-077', 'LM-068', 'RB1-10', 'BT900-112'], bad: ['bt1-010', 'BT1', 'BT1-01a', 'BT1_010'] },
    gundam: { good: ['GD01-001', 'ST10-016', 'R-001', 'T-011', 'EXRP-001', 'EXB-001'], bad: ['GD01-001_p1', 'gd01-001'] },
    'grand-archive': { good: ['lorraine-wandering-warrior', 'absolving-flames', 'arcane-blast-2'], bad: ['Absolving-Flames', 'a--b', '-a', 'a_b'] },
    'chrono-core': { good: ['WNR01-001', 'SD01-033', 'SD03-010'], bad: ['WNR1-001', 'WNR01-01', 'wnr01-001'] },
  };
  it.each(GAME_SLUGS)('%s', (game) => {
    const pattern = findGame(game)!.cardIdPattern;
    for (const id of samples[game].good) {
      expect(pattern.test(id), id).toBe(true);
      expect(CARD_ID_PATTERN.test(id), id).toBe(true);
    }
    for (const id of samples[game].bad) expect(pattern.test(id), id).toBe(false);
  });
});
