/** Gundam: sets, printings and effects shaped like the real catalog (gcg-api). */
import type { GundamCard } from '@snapdeck/contract';
import type { Rng } from '../lib/prng.ts';
import { cardNumber, pad, withContinuation, type GameGenerator, type SetSpec } from './common.ts';

const GUNDAM_PLAN: readonly SetSpec[] = [
  ...(
    [
      ['GD01', 'Newtype Rising'], ['GD02', 'Dual Impact'], ['GD03', 'Steel Requiem'], ['GD04', 'Phantom Aria'],
      ['GD05', 'Freedom Ascension'], ['GD06', 'Booster Set GD06'], ['GD07', 'Booster Set GD07'], ['GD08', 'Booster Set GD08'],
    ] as const
  ).map(([id, name]): SetSpec => ({ id, name, size: 130, digits: 3, kind: 'booster' })),
  { id: 'EB01', name: 'Eternal Nexus', size: 80, digits: 3, kind: 'booster' },
  { id: 'EB02', name: 'Extra Booster EB02', size: 80, digits: 3, kind: 'booster' },
  ...(
    [
      ['ST01', 'Heroic Beginnings'], ['ST02', 'Wings of Advance'], ['ST03', "Zeon's Rush"], ['ST04', 'SEED Strike'],
      ['ST05', 'Iron Bloom'], ['ST06', 'Clan Unity'], ['ST07', 'Celestial Drive'], ['ST08', 'Flash of Radiance'],
      ['ST09', 'Destiny Ignition'], ['ST10', 'Generation Pulse'], ['ST11', 'Starter Deck ST11'], ['ST12', 'Starter Deck ST12'],
    ] as const
  ).map(([id, name]): SetSpec => ({ id, name, size: 17, digits: 3, kind: 'starter' })),
  { id: 'RP', name: 'Promotion card', size: 53, digits: 3, kind: 'promo' },
  { id: 'T', name: 'Other Product Card', size: 30, digits: 3, kind: 'special' },
  { id: 'R', name: 'Edition Beta', size: 6, digits: 3, kind: 'special' },
  { id: 'EXB', name: 'Basic Cards', size: 3, digits: 3, kind: 'special' },
  { id: 'EXR', name: 'Basic Cards', size: 3, digits: 3, kind: 'special' },
];
const gundamSets = () =>
  withContinuation(GUNDAM_PLAN, (k) => ({ id: `GD${pad(8 + k, 2)}`, name: `Booster Set GD${pad(8 + k, 2)}`, size: 130, digits: 3, kind: 'booster' }));

const gundamImageUrl = (printingId: string) => `https://www.gundam-gcg.com/en/images/cards/card/${printingId}.webp?260612`;
const gundamDetailUrl = (printingId: string) => `https://www.gundam-gcg.com/en/cards/detail.php?detailSearch=${printingId}`;

const GUNDAM_COLORS = ['Blue', 'Green', 'Red', 'White', 'Purple'] as const;
const MOBILE_SUITS = ['Gundam', 'Zaku II', 'Gouf', 'Dom', 'GM', 'Guncannon', 'Guntank', 'Gelgoog', 'Strike Gundam', 'Aegis Gundam', 'Freedom Gundam', 'Justice Gundam', 'Wing Gundam', 'Gundam Deathscythe', 'Gundam Heavyarms', 'Gundam Barbatos', 'Gundam Aerial', 'Unicorn Gundam', 'Gundam Exia', 'Sazabi', 'Nu Gundam', 'Kshatriya', 'Hyaku Shiki', 'Dopp', 'Zaku I', 'Pisces', 'Gundam Lfrith', 'Graze', 'Xi Gundam', 'Penelope', 'GQuuuuuuX', 'Gundam X', 'Turn A Gundam', 'Gundam AGE-1', 'Victory Gundam', 'Shining Gundam', 'Zeta Gundam', 'Qubeley', 'Destiny Gundam', 'Impulse Gundam'];
const MS_SUFFIXES = ['', '', '', ' (MA Form)', ' Custom', ' Kai', ' Type-2', ' (Destroy Mode)', ' Full Armor', ' Ver.Ka'];
const PILOTS = ['Amuro Ray', 'Char Aznable', 'Kira Yamato', 'Athrun Zala', 'Heero Yuy', 'Setsuna F. Seiei', 'Mikazuki Augus', 'Suletta Mercury', 'Banagher Links', 'Sayla Mass', 'Lacus Clyne', 'Lunamaria Hawke', 'Garrod Ran', 'Kamille Bidan', 'Judau Ashta', 'Hathaway Noa', 'Amate Yuzuriha (Machu)', 'Miorine Rembran', 'Duo Maxwell', 'Orga Itsuka', 'Shinn Asuka', 'Domon Kasshu', 'Ramba Ral', 'Quattro Bajeena', 'Mu La Flaga'];
const GUNDAM_TRAITS = ['Earth Federation', 'Zeon', 'White Base Team', 'Triple Ship Alliance', 'ZAFT', 'Academy', 'Operation Meteor', 'Tekkadan', 'Celestial Being', 'Newtype', 'Coordinator', 'G Generation', 'Neo Zeon', 'AEUG', 'Titans', 'Civilian', 'Cyber-Newtype', 'Vagan'];
const SOURCE_TITLES = ['Mobile Suit Gundam', 'Mobile Suit Gundam SEED', 'SD Gundam G Generation ETERNAL', 'Mobile Suit Gundam IRON-BLOODED ORPHANS', 'Mobile Suit Gundam Wing', 'Mobile Suit Gundam GQuuuuuuX', 'Mobile Suit Gundam 00', 'Mobile Suit Gundam Unicorn', 'Mobile Suit Z Gundam', 'Mobile Suit Gundam the Witch from Mercury', 'After War Gundam X', 'Mobile Suit Gundam AGE', "Mobile Suit Gundam: Hathaway's Flash", 'Mobile Suit Gundam SEED DESTINY'];
const COMMAND_WORDS_A = ['Desperate', 'Kinetic', 'Overwhelming', 'Tactical', 'Sudden', 'Coordinated', 'Emergency', 'Final', 'Silent', 'Decisive', 'Orbital', 'Trans-Am'];
const COMMAND_WORDS_B = ['Defense', 'Barrage', 'Firepower', 'Retreat', 'Assault', 'Maneuver', 'Repairs', 'Countermeasure', 'Breakthrough', 'Strike', 'Bombardment', 'Burst'];
const BASES = ['White Base', 'Ra Cailum', 'Archangel', 'Minerva', 'Ptolemaios', 'Isaribi', 'Nahel Argama', 'Solomon', 'A Baoa Qu', 'Jaburo', 'Eternal', 'Asticassia School'];
const GUNDAM_KEYWORDS: ReadonlyArray<readonly [string, boolean, string]> = [
  ['Blocker', false, 'Rest this Unit to change the attack target to it.'],
  ['Repair', true, 'At the end of your turn, this Unit recovers the specified number of HP.'],
  ['Breach', true, "When this Unit's attack destroys an enemy Unit, deal the specified amount of damage to the first card in that opponent's shield area."],
  ['High-Maneuver', false, "This Unit can't be blocked."],
  ['First Strike', false, 'While this Unit is attacking, it deals damage before the enemy Unit.'],
  ['Support', true, 'Rest this Unit: 1 other friendly Unit gets AP+(specified amount) during this turn.'],
  ['Suppression', false, 'Damage to shields by an attack is dealt to the first 2 cards simultaneously.'],
];
const GUNDAM_CLAUSES = [
  (rng: Rng) => `Choose 1 enemy Unit with ${rng.int(2, 5)} or less HP. Deal ${rng.int(1, 3)} damage to it.`,
  (rng: Rng) => `Draw ${rng.int(1, 2)}.`,
  (rng: Rng) => `Choose 1 of your Units. It gets AP+${rng.int(1, 3)} during this turn.`,
  (rng: Rng) => `Choose 1 rested enemy Unit with Lv.${rng.int(2, 5)} or lower. Return it to its owner's hand.`,
  (rng: Rng) => `Deploy 1 [${rng.pick(['Fatum-00', 'Gundam Mk-II', 'Zaku II', 'GM'])}]((${rng.pick(GUNDAM_TRAITS)})·AP${rng.int(1, 3)}·HP${rng.int(1, 3)}) Unit token.`,
  (rng: Rng) => `Look at the top ${rng.int(2, 4)} cards of your deck. You may reveal 1 (${rng.pick(GUNDAM_TRAITS)}) card among them and add it to your hand. Return the remaining cards randomly to the bottom of your deck.`,
  (rng: Rng) => `If you have ${rng.int(2, 3)} or more other Units in play, set this Unit as active.`,
  (rng: Rng) => `Place 1 EX Resource. Then, choose 1 of your Units. It recovers ${rng.int(1, 3)} HP.`,
];

function gundamEffect(rng: Rng, cardType: GundamCard['cardType'], keywords: GundamCard['keywords']): { effect: string; timings: string[] } {
  const lines: string[] = [];
  const timings: string[] = [];
  for (const kw of keywords) {
    const spec = GUNDAM_KEYWORDS.find(([k]) => k === kw.keyword);
    lines.push(`<${kw.keyword}${kw.value === null ? '' : ` ${kw.value}`}>${spec ? ` (${spec[2]})` : ''}`);
  }
  const add = (timing: string) => {
    if (!timings.includes(timing)) timings.push(timing);
    lines.push(`【${timing}】${rng.pick(GUNDAM_CLAUSES)(rng)}`);
  };
  if (cardType === 'Command') {
    add(rng.pick(['Main', 'Action', 'Main']));
    if (rng.chance(0.4)) add('Burst');
  } else if (cardType === 'Pilot') {
    if (rng.chance(0.7)) add('Burst');
    add(rng.pick(['When Paired', 'Attack', 'During Pair']));
  } else if (cardType === 'Base') {
    add('Deploy');
    if (rng.chance(0.5)) add('Burst');
  } else if (cardType === 'Unit') {
    if (rng.chance(0.85)) add(rng.pick(['Deploy', 'Attack', 'When Paired', 'During Link', 'Destroyed', 'Activate']));
    if (rng.chance(0.3)) add(rng.pick(['When Linked', 'During Pair', 'Once per Turn']));
  }
  return { effect: lines.join('\n'), timings };
}

function gundamTypeAt(rng: Rng, set: SetSpec, n: number): GundamCard['cardType'] {
  if (set.id === 'T') return 'Unit Token';
  if (set.id === 'R') return 'Resource';
  if (set.id === 'EXB') return 'EX Base';
  if (set.id === 'EXR') return 'EX Resource';
  if (set.kind === 'promo') return rng.weighted([['Unit', 60], ['Pilot', 20], ['Command', 15], ['Base', 5]] as const);
  // Boosters run colour by colour; within a colour: Units, then Pilots, Commands and Bases.
  const g = (((n - 1) * 5) / set.size) % 1;
  return g < 0.55 ? 'Unit' : g < 0.7 ? 'Pilot' : g < 0.88 ? 'Command' : 'Base';
}

function gundamCard(rng: Rng, set: SetSpec, n: number): GundamCard {
  const id = cardNumber(set, n);
  const cardType = gundamTypeAt(rng, set, n);
  const colorless = cardType === 'Resource' || cardType === 'EX Resource' || cardType === 'EX Base' || cardType === 'Unit Token';
  const colorIndex = set.kind === 'booster' ? Math.floor(((n - 1) * 5) / set.size) : rng.int(0, 4);
  const color = colorless ? [] : [GUNDAM_COLORS[colorIndex % 5] ?? 'Blue'];
  const level = colorless ? null : cardType === 'Pilot' || cardType === 'Command' ? rng.int(1, 5) : rng.weighted([[1, 5], [2, 18], [3, 30], [4, 35], [5, 18], [6, 9], [7, 5], [8, 3]] as const);
  const cost = level === null ? null : Math.max(1, Math.min(level, rng.int(level - 3, level - 1)));
  const pilotHalf = cardType === 'Command' && rng.chance(0.15);
  const isUnit = cardType === 'Unit' || cardType === 'Unit Token';
  const ap = isUnit ? rng.int(level === null ? 1 : Math.max(0, level - 2), level === null ? 4 : Math.min(6, level + 1)) : cardType === 'Pilot' || pilotHalf ? rng.int(0, 2) : null;
  const hp = isUnit ? rng.int(1, level === null ? 4 : Math.min(7, level + 1)) : cardType === 'Pilot' || pilotHalf ? rng.int(0, 2) : cardType === 'Base' || cardType === 'EX Base' ? rng.int(0, 5) : null;
  const name =
    cardType === 'Pilot' ? rng.pick(PILOTS)
    : cardType === 'Command' ? `${rng.pick(COMMAND_WORDS_A)} ${rng.pick(COMMAND_WORDS_B)}`
    : cardType === 'Base' ? rng.pick(BASES)
    : cardType === 'Resource' ? 'Resource'
    : cardType === 'EX Resource' ? 'EX Resource'
    : cardType === 'EX Base' ? 'EX Base'
    : `${rng.pick(MOBILE_SUITS)}${rng.pick(MS_SUFFIXES)}`;
  const traits = colorless && cardType !== 'Unit Token' ? [] : rng.sample(GUNDAM_TRAITS, rng.int(1, 2));
  const linkPilot = cardType === 'Unit' && rng.chance(0.45) ? rng.pick(PILOTS) : null;
  const keywords: GundamCard['keywords'] =
    (isUnit || cardType === 'Pilot') && rng.chance(0.35)
      ? [GUNDAM_KEYWORDS[rng.int(0, GUNDAM_KEYWORDS.length - 1)]!].map(([keyword, valued]) => ({ keyword, value: valued ? rng.int(1, 3) : null }))
      : [];
  const { effect: text, timings } = colorless && cardType !== 'Unit Token' ? { effect: cardType.endsWith('Resource') ? '(Rest a Resource when paying a cost.)' : '', timings: [] } : gundamEffect(rng, cardType, keywords);
  const effect = pilotHalf ? `${text}\n【Pilot】[${rng.pick(PILOTS)}]` : text;
  const rarity = set.kind === 'promo' ? 'P' : cardType === 'Resource' || cardType === 'Unit Token' || colorless ? 'C' : rng.weighted([['C', 55], ['U', 20], ['R', 18], ['LR', 7]] as const);
  const productOrigin = set.kind === 'promo' ? rng.pick(['Store Tournament Participant Pack 01', 'Premium Accessory Set -Mobile Suit Gundam Wing- [PB01]', 'Accessory and Card Set 01 FIRST COMBAT [EVX-01]']) : `${set.name} [${set.id}]`;

  const cardArts: GundamCard['cardArts'] = [{ id, type: 'Standard', url: gundamImageUrl(id), rarity, productOrigin }];
  const parallels = set.kind !== 'special' && rng.chance(rarity === 'LR' || rarity === 'R' ? 0.75 : 0.3) ? rng.weighted([[1, 7], [2, 2], [3, 1]] as const) : 0;
  for (let k = 1; k <= parallels; k += 1) {
    const pid = `${id}_p${k}`;
    const sp = rng.chance(0.02);
    cardArts.push({ id: pid, type: sp ? 'SP' : 'Parallel', url: gundamImageUrl(pid), rarity: `${rarity} ${'+'.repeat(Math.min(k, 2))}`, productOrigin: rng.chance(0.7) ? productOrigin : `${set.name} [${set.id}] Bonus Pack` });
  }

  return {
    id,
    objectID: id,
    cardNumber: id,
    name,
    cardType,
    color,
    level,
    cost,
    ap,
    hp,
    rarity,
    traits,
    linkCondition: linkPilot ? `[${linkPilot}]` : null,
    keywords,
    effect,
    timings,
    setId: set.id,
    setName: set.name,
    cardImageUrl: gundamImageUrl(id),
    hasAltArt: cardArts.length > 1,
    terrain: isUnit && cardType === 'Unit' ? rng.weighted([[['Space', 'Earth'], 8], [['Space'], 1], [['Earth'], 1]] as const).slice() : [],
    linkRefs: linkPilot ? [linkPilot] : [],
    sourceTitle: colorless && cardType !== 'Unit Token' ? null : rng.pick(SOURCE_TITLES),
    block: rng.chance(0.9) ? '1' : '2',
    setOrder: n,
    productOrigin,
    detailUrl: gundamDetailUrl(id),
    cardArts,
  };
}

export const gundam: GameGenerator<GundamCard> = { plan: GUNDAM_PLAN, sets: gundamSets, cards: () => gundamCard };
