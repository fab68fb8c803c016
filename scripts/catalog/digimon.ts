/** Digimon: sets, names, effects and alt arts shaped like the real catalog (digimoncard.io). */
import { DIGIMON_COLORS, digimonTimingsOf, type DigimonCard } from '@snapdeck/contract';
import type { Rng } from '../lib/prng.ts';
import { cardNumber, plural, withContinuation, type GameGenerator, type SetSpec } from './common.ts';

const DIGIMON_BOOSTERS: ReadonlyArray<readonly [string, string, number]> = [
  ['BT1', 'BT-01: Booster New Evolution', 115], ['BT2', 'BT-02: Booster Ultimate Power', 112],
  ['BT3', 'BT-03: Booster Union Impact', 112], ['BT4', 'BT-04: Booster Great Legend', 115],
  ['BT5', 'BT-05: Booster Battle Of Omni', 112], ['BT6', 'BT-06: Booster Double Diamond', 112],
  ['BT7', 'BT-07: Booster Next Adventure', 112], ['BT8', 'BT-08: Booster New Awakening', 112],
  ['BT9', 'BT-09: Booster X Record', 112], ['BT10', 'BT-10: Booster Xros Encounter', 112],
  ['BT11', 'BT-11: Booster Dimensional Phase', 112], ['BT12', 'BT-12: Booster Across Time', 112],
  ['BT13', 'BT-13: Booster Versus Royal Knights', 112], ['BT14', 'BT-14: Booster Blast Ace', 102],
  ['BT15', 'BT-15: Booster Exceed Apocalypse', 102], ['BT16', 'BT-16: Booster Beginning Observer', 102],
  ['BT17', 'BT-17: Booster Secret Crisis', 102], ['BT18', 'BT-18: Booster Elemental Successor', 102],
  ['BT19', 'BT-19: Booster Xros Evolution', 102], ['BT20', 'BT-20: Booster Over the X', 102],
  ['BT21', 'BT-21: BOOSTER WORLD CONVERGENCE', 102], ['BT22', 'BT-22: BOOSTER CYBER EDEN', 102],
  ['BT23', "BT-23: BOOSTER HACKERS' SLUMBER", 102], ['BT24', 'BT-24: BOOSTER TIME STRANGER', 102],
  ['BT25', 'BT-25: BOOSTER DUAL REVOLUTION', 104], ['BT26', 'BT-26: BOOSTER TIMELESS BONDS', 104],
  ['EX1', 'EX-01: Theme Booster Classic Collection', 73], ['EX2', 'EX-02: Theme Booster Digital Hazard', 74],
  ['EX3', 'EX-03: Theme Booster Draconic Roar', 74], ['EX4', 'EX-04: Theme Booster Alternative Being', 74],
  ['EX5', 'EX-05: Theme Booster Animal Colosseum', 74], ['EX6', 'EX-06: Theme Booster Infernal Ascension', 74],
  ['EX7', 'EX-07: Extra Booster Digimon Liberator', 74], ['EX8', 'EX-08: Extra Booster Chain of Liberation', 74],
  ['EX9', 'EX-09: EXTRA BOOSTER VERSUS MONSTERS', 74], ['EX10', 'EX-10: EXTRA BOOSTER SINISTER ORDER', 74],
  ['EX11', 'EX-11: EXTRA BOOSTER DAWN OF LIBERATOR', 74], ['EX12', 'EX-12: EXTRA BOOSTER DIGITAL WORLD SHAMBALA', 77],
  ['AD1', 'AD-01: ADVANCED BOOSTER DIGIMON GENERATION', 25], ['RB1', 'RB-01: Resurgence Booster', 37],
];
const DIGIMON_STARTERS: ReadonlyArray<readonly [string, string, number]> = [
  ['ST1', 'ST-1: Starter Deck Gaia Red', 16], ['ST2', 'ST-2: Starter Deck Cocytus Blue', 16],
  ['ST3', "ST-3: Starter Deck Heaven's Yellow", 16], ['ST4', 'ST-4: Starter Deck Giga Green', 16],
  ['ST5', 'ST-5: Starter Deck Machine Black', 16], ['ST6', 'ST-6: Starter Deck Venomous Violet', 16],
  ['ST7', 'ST-7: Starter Deck Gallantmon', 12], ['ST8', 'ST-8: Starter Deck UlforceVeedramon', 12],
  ['ST9', 'ST-9: Starter Deck Ultimate Ancient Dragon', 15], ['ST10', 'ST-10: Starter Deck Parallel World Tactician', 15],
  ['ST12', 'ST-12: Starter Deck Jesmon', 16], ['ST13', 'ST-13: Starter Deck RagnaLoardmon', 16],
  ['ST14', 'ST-14: Advanced Deck Set Beelzemon', 12], ['ST15', 'ST-15: Starter Deck Dragon of Courage', 16],
  ['ST16', 'ST-16: Starter Deck Wolf of Friendship', 16], ['ST17', 'ST-17: Advanced Deck Set Double Typhoon', 13],
  ['ST18', 'ST-18: Starter Deck Guardian Vortex', 15], ['ST19', 'ST-19: Starter Deck Fable Waltz', 15],
  ['ST20', 'ST-20: STARTER DECK PROTECTOR OF LIGHT', 15], ['ST21', 'ST-21: STARTER DECK HERO OF HOPE', 15],
  ['ST22', 'ST-22: ADVANCED DECK SET AMETHYST MANDALA', 14], ['ST23', 'ST-23: STARTER DECK DIGIMON BEATBREAK', 15],
  ['ST24', 'ST-24: STARTER DECK DIGIMON DATA SQUAD', 15],
];
const DIGIMON_PLAN: readonly SetSpec[] = [
  ...DIGIMON_BOOSTERS.map(([id, name, size]): SetSpec => ({ id, name, size, digits: 3, kind: 'booster' })),
  ...DIGIMON_STARTERS.map(([id, name, size]): SetSpec => ({ id, name, size, digits: 2, kind: 'starter' })),
  { id: 'LM', name: 'Limited Card Packs', size: 68, digits: 3, kind: 'special' },
  { id: 'P', name: 'Promotion Cards', size: 243, digits: 3, kind: 'promo' },
];
/** Beyond the real sets: BT27, BT28, … of 112 cards each (benchmarks ask for 100,000 cards). */
const digimonSets = () =>
  withContinuation(DIGIMON_PLAN, (k) => ({ id: `BT${26 + k}`, name: `BT-${26 + k}: Booster Set ${26 + k}`, size: 112, digits: 3, kind: 'booster' }));

export const digimonImageUrl = (artId: string) => `https://digimoncard.app/assets/images/cards/${artId}.webp`;
export const digimonSourceImageUrl = (id: string) => `https://world.digimoncard.com/images/cardlist/card/${id}.png`;

const DIGI_ROOTS = ['Agu', 'Gabu', 'Gao', 'Guil', 'Vee', 'Terrier', 'Lala', 'Pata', 'Tento', 'Goma', 'Biyo', 'Pal', 'Hawk', 'Arma', 'Wormm', 'Kuda', 'Shout', 'Dorul', 'Gamma', 'Jelly', 'Ange', 'Kera', 'Liolla', 'Hack', 'Pulse', 'Drac', 'Coro', 'Fanbee', 'Falco', 'Kotem', 'Lopm', 'Impm', 'Renamon', 'Gotsu', 'Cyclo', 'Tyranno', 'Grey', 'Garuru', 'Kabuteri', 'Ikkaku', 'Birdra', 'Togem', 'Leo', 'Dino', 'Zudo', 'Mega', 'Knight', 'Sakuya', 'Taomon', 'Gryph', 'Ogre', 'Devi', 'Myotis', 'Sistermon', 'Ancient', 'Rize', 'Saber', 'Duke', 'Ulforce', 'Exa', 'Jes', 'Gankoo', 'Alpha', 'Magna', 'Crania', 'Examon', 'Omega', 'Dyna', 'Slayer', 'Rapid'];
const DIGI_BABY = ['Koro', 'Tsuno', 'Puka', 'Yoko', 'Bud', 'Poyo', 'Nyoki', 'Pabu', 'Mochi', 'Zeri', 'Tokomon', 'Kyoko', 'Pina', 'Dodo', 'Chico', 'Bebydo'];
const DIGI_PREFIX: Record<number, readonly string[]> = {
  3: [''],
  4: ['', 'Were', 'Grey', 'Dark', 'Black', 'Sea', 'Wing', 'Red'],
  5: ['Metal', 'Mega', 'War', 'Skull', 'Were', 'Holy', 'Cyber', 'Aero', 'Silphy'],
  6: ['Omni', 'Shine', 'Imperial', 'Ulti', 'Saint', 'Chaos', 'Blitz', 'Royal', 'Zeed', 'Millennium'],
  7: ['Omega', 'Alpha', 'Ragna', 'Ultima', 'Arma'],
};
const DIGI_MODES = [': X Antibody', ' (X Antibody)', ': Burst Mode', ': Crimson Mode', ': Zwart', ': Alterous Mode', ' Royal Knight'];
const BLAST_DIGIVOLVE = '[Hand] [Counter] ＜Blast Digivolve＞ (Your Digimon may digivolve into this card without paying the cost.)';
const overflow = (n: number) => `Overflow ＜-${n}＞ (As this card moves from the field or under a card to an area other than those, lose ${n} memory.)`;
const DIGI_TRAITS = ['Dinosaur', 'Dragon', 'Beast', 'Bird', 'Machine', 'Cyborg', 'Holy Beast', 'Angel', 'Demon Lord', 'Dark Dragon', 'Royal Knight', 'Sea Animal', 'Aqua', 'Insectoid', 'Plant', 'Vegetation', 'Wizard', 'Undead', 'Ghost', 'Avian', 'Mythical Beast', 'Ancient Dragon', 'Mineral', 'Rock', 'Puppet', 'Beastkin', 'Fairy', 'Titan', 'Dark Animal', 'Composite'];
const DIGI_TEAMS = ['Xros Heart', 'Hybrid', 'Appmon', 'ADVENTURE', 'D-Brigade', 'LIBERATOR', 'Royal Base', 'Three Musketeers', 'DigiPolice', 'Blue Flare', 'Ten Warriors', 'TS', 'DATA SQUAD', 'Shambala', 'SoC', 'Glowing Dawn', 'X Antibody', 'CS'];
const DIGI_ATTRIBUTES: ReadonlyArray<readonly [string, number]> = [['Virus', 30], ['Vaccine', 27], ['Data', 24], ['Free', 8], ['Variable', 5], ['Unknown', 4], ['Free', 2]];
const DIGI_FORMS: Record<number, string> = { 2: 'In-Training', 3: 'Rookie', 4: 'Champion', 5: 'Ultimate', 6: 'Mega', 7: 'Mega' };
const TAMER_FIRST = ['Tai', 'Matt', 'Sora', 'Izzy', 'Mimi', 'Joe', 'Davis', 'Ken', 'Takato', 'Henry', 'Rika', 'Takuya', 'Koji', 'Marcus', 'Thomas', 'Yoshino', 'Mikey', 'Nene', 'Tagiru', 'Hiro', 'Kiyoshiro', 'Ruli', 'Haru', 'Astra', 'Ryo', 'Yuuko', 'Hina', 'Kouki', 'Amane', 'Ai'];
const TAMER_LAST = ['Kamiya', 'Ishida', 'Takenouchi', 'Izumi', 'Tachikawa', 'Kido', 'Motomiya', 'Ichijoji', 'Matsuki', 'Wong', 'Nonaka', 'Kanbara', 'Minamoto', 'Damon', 'Norstein', 'Fujieda', 'Kudo', 'Amano', 'Akashi', 'Shinkai', 'Higashimitsuba', 'Ozora', 'Aonuma', 'Kazama', 'Tendo', 'Kirishima'];
const OPTION_FIRST = ['Gaia', 'Crimson', 'Frozen', 'Thunder', 'Holy', 'Dark', 'Final', 'Blazing', 'Howling', 'Infinity', 'Eternal', 'Shining', 'Giga', 'Double', 'Trinity', 'Digital', 'Mirage', 'Royal', 'Abyssal', 'Grand'];
const OPTION_SECOND = ['Force', 'Flame', 'Cannon', 'Arrow', 'Strike', 'Blaster', 'Shield', 'Requiem', 'Crest', 'Burst', 'Gate', 'Impact', 'Sword', 'Wave', 'Storm', 'Hazard', 'Gift', 'Resonance', 'Heaven', 'Judgment'];
const ILLUSTRATORS = ['Kenji Watanabe', 'tessy', 'Nakano Haito', 'NAOKI AKAMINE', 'Tsunemi Aosa', 'Kazumasa Yasukuni', 'YAMURETSU', 'naru', 'GOSSAN', 'Itohiro', 'sasasi', 'Spareribs', 'Hiroki Harada', 'Ryuda', 'Takumi Wada', 'kyo', 'Taiki', 'Sakiyama', 'Gyo', 'Koki', 'MINAMI', 'Amahara Yuji', 'Tomoya Nakamura', 'Hinata Sato'];
const AA_TYPES = ['Alternative Art', 'Alternative Art', 'Alternative Art', 'Foil - Alternative Art', 'Textured - Alternative Art', 'Foil - Coloured Border - Alternative Art', 'Foil - Coloured Border - Limited Common', 'Foil - Coloured Border - Limited Uncommon', 'Foil - Stamped - 1st Place Prize', 'Full Art - Box Topper', 'Gold Foil - Alternative Art', 'Foil - Pre Release Stamp - Rare', 'Textured - Special Rare'];
const AA_ORIGINS = ['Championship 2024 Tamers Pack', 'Special Event Pack 2025', 'Official Store Tournament 2026 Vol.3', 'Event Pack 8', 'Update Pack 2025', '3rd Anniversary Update Pack', 'Limited Card Set ONLINE 2023', 'Digimon Liberator Promotion Pack', '25th Special Memorial Pack', 'Demo Deck: Imperialdramon'];
const KEYWORDS_DIGI = [
  '＜Blocker＞ (This Digimon can block in the blocker timing.)',
  '＜Rush＞ (This Digimon can attack the turn it comes into play.)',
  "＜Piercing＞ (When this Digimon attacks your opponent's Digimon, and it deletes that Digimon in battle, it checks security before the attack ends.)",
  "＜Jamming＞ (This Digimon can't be deleted in battles against Security Digimon.)",
  "＜Reboot＞ (Unsuspend this Digimon during your opponent's unsuspend phase.)",
  "＜Raid＞ (When this Digimon attacks, you may switch the target of attack to 1 of your opponent's unsuspended Digimon with the highest DP.)",
];
const MAIN_TIMINGS = ['[On Play]', '[When Digivolving]', '[When Attacking]', '[On Deletion]', '[Your Turn]', '[All Turns]', "[Opponent's Turn]", '[Start of Your Main Phase]', '[End of Your Turn]', '[End of Attack]', '[On Play] [When Digivolving]', '[When Digivolving] [When Attacking]'];

function digimonClause(rng: Rng, trait: string): string {
  const dp = rng.int(3, 12) * 1000;
  const n = rng.int(1, 3);
  switch (rng.int(0, 13)) {
    case 0: return `Delete 1 of your opponent's Digimon with ${dp} DP or less.`;
    case 1: return `＜Draw ${n}＞ (Draw ${plural(n, 'card')} from your deck.)`;
    case 2: return `1 of your opponent's Digimon gets -${dp} DP for the turn.`;
    case 3: return `Return 1 of your opponent's level ${rng.int(3, 5)} or lower Digimon to the hand.`;
    case 4: return `You may play 1 [${trait}] trait Digimon card with a play cost of ${rng.int(3, 6)} or less from your hand without paying the cost.`;
    case 5: return `Gain ${n} memory.`;
    case 6: return `Suspend 1 of your opponent's Digimon or Tamers. Then, ${n} of their Digimon can't unsuspend until their turn ends.`;
    case 7: return `This Digimon gets +${rng.int(1, 4) * 1000} DP for the turn.`;
    case 8: return `Reveal the top 3 cards of your deck. Add 1 [${trait}] trait card and 1 Tamer card among them to the hand. Return the rest to the bottom of the deck.`;
    case 9: return `＜De-Digivolve ${n}＞ 1 of your opponent's Digimon. (Trash up to ${n} cards from the top of one of your opponent's Digimon. If it has no digivolution cards, or becomes a level 3 Digimon, you can't trash any more cards.)`;
    case 10: return `By trashing 1 card in your hand, this Digimon gains ＜Security A. +1＞ for the turn. (This Digimon checks 1 additional security card.)`;
    case 11: return `Place 1 of your opponent's Digimon with ${dp} DP or less at the bottom of its owner's security stack.`;
    case 12: return `1 of your Digimon with the [${trait}] trait may digivolve into a Digimon card with the same trait in the hand with the digivolution cost reduced by ${n}.`;
    default: return `Trash any ${plural(n, 'digivolution card')} from the bottom of 1 of your opponent's Digimon. Then, delete 1 of their Digimon with no digivolution cards.`;
  }
}

function digimonMainEffect(rng: Rng, trait: string, lines: number): string {
  const out: string[] = [];
  if (rng.chance(0.3)) out.push(rng.pick(KEYWORDS_DIGI));
  for (let i = 0; i < lines; i += 1) {
    const once = rng.chance(0.3) ? ' [Once Per Turn]' : '';
    const body = rng.chance(0.45) ? `${digimonClause(rng, trait)} Then, ${lowerFirst(digimonClause(rng, trait))}` : digimonClause(rng, trait);
    out.push(`${rng.pick(MAIN_TIMINGS)}${once} ${body}`);
  }
  return out.join('\n');
}

const lowerFirst = (s: string) => (s.startsWith('＜') ? s : s.charAt(0).toLowerCase() + s.slice(1));

function digimonInherited(rng: Rng): string {
  switch (rng.int(0, 5)) {
    case 0: return `[Your Turn] This Digimon gets +${rng.int(1, 2) * 1000} DP.`;
    case 1: return '[When Attacking] [Once Per Turn] ＜Draw 1＞ (Draw 1 card from your deck.)';
    case 2: return rng.pick(KEYWORDS_DIGI);
    case 3: return '[Your Turn] [Once Per Turn] When this Digimon is blocked, gain 1 memory.';
    case 4: return `[When Attacking] 1 of your opponent's Digimon gets -${rng.int(1, 3) * 1000} DP for the turn.`;
    default: return '[All Turns] While this Digimon has 4 or more digivolution cards, it gains ＜Jamming＞.';
  }
}

function digimonTypeAt(rng: Rng, set: SetSpec, n: number): DigimonCard['cardType'] {
  const f = (n - 1) / set.size;
  if (set.kind === 'promo' || set.kind === 'special') {
    return rng.weighted([['Digimon', 72], ['Tamer', 10], ['Option', 14], ['Digi-Egg', 4]] as const);
  }
  if (set.kind === 'starter') {
    if (n === 1) return 'Digi-Egg';
    if (n <= Math.round(set.size * 0.66)) return 'Digimon';
    return n <= Math.round(set.size * 0.78) ? 'Tamer' : 'Option';
  }
  if (f < 0.055) return 'Digi-Egg';
  if (f < 0.8 || f >= 0.975) return rng.chance(setNumber(set) >= 25 ? 0.04 : 0) ? 'Dual' : 'Digimon';
  return f < 0.885 ? 'Tamer' : 'Option';
}

const setNumber = (set: SetSpec) => Number(/\d+$/.exec(set.id)?.[0] ?? '0');

function digimonRarity(rng: Rng, set: SetSpec, cardType: DigimonCard['cardType'], level: number, secret: boolean): string {
  if (set.kind === 'promo') return 'P';
  if (secret) return 'SEC';
  if (cardType === 'Digi-Egg') return rng.pick(['U', 'R', 'R']);
  if (cardType === 'Tamer') return rng.pick(['U', 'R', 'R', 'SR']);
  if (cardType === 'Option') return rng.pick(['C', 'C', 'U', 'R']);
  if (level >= 7) return 'SR';
  if (level === 6) return rng.weighted([['SR', 5], ['R', 4], ['UR', 0.3]] as const);
  if (level === 5) return rng.weighted([['R', 5], ['U', 3], ['SR', 1]] as const);
  return rng.weighted([['C', 6], ['U', 3], ['R', 1]] as const);
}

function digimonName(rng: Rng, level: number): string {
  if (level <= 2) return `${rng.pick(DIGI_BABY)}mon`.replace(/monmon$/, 'mon');
  const root = rng.pick(DIGI_ROOTS).replace(/mon$/, '');
  const name = `${rng.pick(DIGI_PREFIX[Math.min(level, 7)] ?? [''])}${level >= 5 ? root.charAt(0).toUpperCase() + root.slice(1) : root}mon`;
  return level >= 5 && rng.chance(0.08) ? `${name}${rng.pick(DIGI_MODES)}` : name;
}

function digimonCard(rng: Rng, set: SetSpec, n: number): DigimonCard {
  const id = cardNumber(set, n);
  const cardType = digimonTypeAt(rng, set, n);
  const f = (n - 1) / set.size;
  const secret = set.kind === 'booster' && f >= 0.975;
  // Boosters are laid out in colour blocks (eggs, then each colour's Digimon, then Tamers, Options).
  const block = set.kind === 'booster' && !secret ? Math.floor((n * 6) / set.size) % 6 : rng.int(0, 5);
  const first = DIGIMON_COLORS[block] ?? 'Red';
  const color: DigimonCard['color'] = rng.chance(secret ? 0.6 : 0.18) ? [first, rng.pick(DIGIMON_COLORS.filter((c) => c !== first))] : [first];

  const isDigimon = cardType === 'Digimon' || cardType === 'Dual';
  const level = cardType === 'Digi-Egg' ? 2 : isDigimon ? (secret ? rng.pick([6, 7]) : rng.weighted([[3, 25], [4, 26], [5, 24], [6, 22], [7, 3]] as const)) : 0;
  const trait = rng.pick(DIGI_TRAITS);
  const team = rng.chance(0.35) ? [rng.pick(DIGI_TEAMS)] : [];
  // About 1 Digimon in 40 is an ACE: "<name> ACE", Blast Digivolve and an Overflow cost.
  const ace = isDigimon && level >= 5 && rng.chance(0.06);
  const baseName =
    cardType === 'Tamer' ? `${rng.pick(TAMER_FIRST)} ${rng.pick(TAMER_LAST)}` : cardType === 'Option' ? `${rng.pick(OPTION_FIRST)} ${rng.pick(OPTION_SECOND)}` : digimonName(rng, level);
  const name = ace ? `${baseName.replace(/:.*$| \(.*\)$/, '')} ACE` : baseName;

  let effect = '';
  let inheritedEffect: string | null = null;
  let securityEffect: string | null = null;
  if (cardType === 'Digi-Egg') {
    inheritedEffect = digimonInherited(rng);
  } else if (isDigimon) {
    effect = rng.chance(0.08) && !ace ? '' : digimonMainEffect(rng, team[0] ?? trait, level >= 6 ? rng.int(1, 3) : rng.int(1, 2));
    if (ace) effect = `${BLAST_DIGIVOLVE}\n${effect}`;
    if (level <= 5 && rng.chance(0.65)) inheritedEffect = digimonInherited(rng);
    if (cardType === 'Dual') effect += `\n[Main] ${digimonClause(rng, trait)}`;
    if (rng.chance(0.04)) securityEffect = '[Security] Play this card without paying the cost.';
  } else if (cardType === 'Tamer') {
    effect = `[Start of Your Turn] If your opponent has a Digimon, gain 1 memory.\n${rng.pick(MAIN_TIMINGS.slice(0, 2))} ${digimonClause(rng, team[0] ?? trait)}`;
    securityEffect = '[Security] Play this card without paying the cost.';
    if (rng.chance(0.3)) inheritedEffect = `[Your Turn] While this Digimon has [${team[0] ?? trait}] in its traits, it gets +1000 DP.`;
  } else {
    effect = `[Main] ${digimonClause(rng, trait)}${rng.chance(0.7) ? ` Then, ${lowerFirst(digimonClause(rng, trait))}` : ''}`;
    securityEffect = rng.chance(0.8) ? "[Security] Activate this card's [Main] effect." : `[Security] ${digimonClause(rng, trait)}`;
  }

  const laterSet = set.id.startsWith('BT') && setNumber(set) >= 21;
  const hasLink = isDigimon && laterSet && rng.chance(0.08);
  const prev = level - 1;
  const digivolveCondition = isDigimon && level >= 3
    ? [{ color: color.slice(), cost: level === 3 ? 0 : level === 7 ? 5 : rng.int(2, 4), level: prev }]
    : [];
  const playCost = isDigimon ? [0, 0, 0, rng.int(2, 5), rng.int(3, 6), rng.int(5, 8), rng.int(10, 13), rng.int(13, 16)][level] ?? 5 : cardType === 'Digi-Egg' ? 0 : rng.int(cardType === 'Tamer' ? 2 : 0, cardType === 'Tamer' ? 5 : 8);
  const dp = isDigimon ? [0, 0, 0, rng.int(1, 4), rng.int(3, 7), rng.int(5, 9), rng.int(10, 13), rng.int(14, 16)][level]! * 1000 : null;

  const illustrator = rng.pick(ILLUSTRATORS);
  const rarity = digimonRarity(rng, set, cardType, level, secret);
  const aaChance = rarity === 'SEC' ? 0.9 : rarity === 'SR' || rarity === 'UR' ? 0.6 : rarity === 'R' ? 0.35 : 0.15;
  const aaCount = rng.chance(aaChance) ? rng.weighted([[1, 6], [2, 3], [3, 1]] as const) : 0;
  const AAs: DigimonCard['AAs'] = [];
  for (let k = 1; k <= aaCount; k += 1) {
    const type = rng.pick(AA_TYPES);
    AAs.push({
      id: `${id}_P${k}`,
      type,
      illustrator: rng.chance(0.6) ? illustrator : rng.pick(ILLUSTRATORS),
      cardImageUrl: digimonImageUrl(`${id}_P${k}`),
      pricingLabel: `${name} (${type})`,
      marketplaceProductId: rng.int(230000, 640000),
      productOrigin: rng.chance(0.4) ? set.name : rng.pick(AA_ORIGINS),
    });
  }

  const card: DigimonCard = {
    id,
    cardNumber: id,
    objectID: id,
    name: { english: name },
    color,
    cardType,
    dp,
    playCost,
    level,
    rarity,
    attribute: isDigimon || cardType === 'Digi-Egg' ? (cardType === 'Digi-Egg' ? '' : rng.weighted(DIGI_ATTRIBUTES)) : '',
    form: DIGI_FORMS[level] ?? '',
    type: isDigimon || cardType === 'Digi-Egg' ? [trait, ...team].join('/') : '',
    effect,
    inheritedEffect,
    securityEffect,
    aceEffect: ace ? overflow(rng.int(3, 5)) : null,
    linkDp: hasLink ? rng.int(1, 3) * 1000 : null,
    hasLink,
    linkCondition: hasLink ? `[Link] [${rng.pick(DIGI_TEAMS)}] trait: Cost ${rng.int(1, 3)}` : null,
    linkEffect: hasLink ? rng.pick(KEYWORDS_DIGI).replace(/ \(.*\)$/, '') : null,
    specialDigivolve: isDigimon && level >= 4 && rng.chance(0.3) ? `[Digivolve] Lv.${prev} w/[${team[0] ?? trait}] trait: Cost ${rng.int(1, 4)}` : null,
    specialDigivolutionConditions: isDigimon && level >= 5 && rng.chance(0.05)
      ? `[DNA Digivolve] ${rng.pick(DIGIMON_COLORS)} Lv.${prev} + ${rng.pick(DIGIMON_COLORS)} Lv.${prev}: Cost 0\nStack the 2 specified Digimon and digivolve unsuspended.`
      : null,
    digivolveCondition,
    setId: set.id,
    setName: set.name,
    setOrder: n,
    productOrigin: set.kind === 'promo' || rng.chance(0.04) ? rng.pick(AA_ORIGINS) : set.name,
    timings: digimonTimingsOf([effect, inheritedEffect, securityEffect]),
    illustrator,
    cardImageUrl: digimonImageUrl(id),
    imageSourceUrl: digimonSourceImageUrl(id),
    hasAltArt: AAs.length > 0,
    cardArts: [
      { id, type: 'Normal', url: digimonImageUrl(id) },
      ...AAs.map((aa) => ({ id: aa.id, type: aa.type, url: aa.cardImageUrl, illustrator: aa.illustrator, marketplaceProductId: aa.marketplaceProductId, pricingLabel: aa.pricingLabel })),
    ],
    AAs,
  };
  return card;
}

export const digimon: GameGenerator<DigimonCard> = { plan: DIGIMON_PLAN, sets: digimonSets, cards: () => digimonCard };
