/**
 * Seeded, deterministic card-catalog generator: writes `<out>/<slug>.jsonl` (one full card per
 * line, each validated against its game's schema first) shaped and sized like the real games.
 *
 *   npx tsx scripts/generate-catalog.ts [--out DIR] [--seed N] [--game SLUG]... [--scale-digimon F] [--count N]
 *
 * --out            output folder (default data/catalog under the repository root)
 * --seed           integer seed (default 7); the same seed always gives the same bytes
 * --game           only this game (repeatable; default all four)
 * --scale-digimon  multiply the digimon catalog size by F (e.g. 23 ≈ 100,000 cards)
 * --count          exact number of cards for every selected game (use with --game)
 *
 * Library use (benchmarks): `writeCatalogFile(file, game, generateCatalog({game, count, seed}))`
 * streams: cards are produced lazily and written in ~1 MB batches, so memory stays flat.
 *
 * Card N of a game is drawn from its own PRNG stream (seed, game, N), so cards do not depend on
 * how many cards are generated, and a larger catalog starts with the same cards as a smaller one.
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CARD_MODELS,
  DIGIMON_COLORS,
  GRAND_ARCHIVE_CLASSES,
  digimonTimingsOf,
  type ChronoCoreCard,
  type ChronoCoreCardType,
  type DigimonCard,
  type GrandArchiveCard,
  type GrandArchiveCardArt,
  type GundamCard,
} from '../packages/contract/src/cards/index.ts';
import { GAME_SLUGS, isGameSlug, type GameSlug } from '../packages/contract/src/games.ts';
import { Rng, mixSeed } from './lib/prng.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DEFAULT_CATALOG_DIR = join(REPO_ROOT, 'data', 'catalog');
export const DEFAULT_SEED = 7;

/** A set the generator fills with cards numbered 1..size. */
interface SetSpec {
  id: string;
  name: string;
  size: number;
  /** Width of the number after the dash: ST1-01 has 2, BT1-010 has 3. */
  digits: number;
  kind: 'booster' | 'starter' | 'promo' | 'special';
}

type AnyCard = DigimonCard | GundamCard | GrandArchiveCard | ChronoCoreCard;

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

const pad = (n: number, digits: number) => String(n).padStart(digits, '0');
const cardNumber = (set: SetSpec, n: number) => `${set.id}-${pad(n, set.digits)}`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Sets of a plan, then an endless continuation of made-up sets in the same style. */
function* withContinuation(plan: readonly SetSpec[], next: (k: number) => SetSpec | undefined): Generator<SetSpec> {
  yield* plan;
  for (let k = 1; ; k += 1) {
    const set = next(k);
    if (!set) return;
    yield set;
  }
}

// ---------------------------------------------------------------------------------------------
// Digimon
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Gundam
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Grand Archive
// ---------------------------------------------------------------------------------------------

const GA_PLAN: readonly SetSpec[] = (
  [
    ['DOA1E', 'Dawn of Ashes First Edition', 290], ['DOAP', 'Dawn of Ashes Prelude', 120], ['DOASD', 'Dawn of Ashes Starter Decks', 110],
    ['FTC', 'Fractured Crown', 100], ['FTCA', 'Fractured Crown: Armaments', 26], ['ALC', 'Alchemical Revolution', 215],
    ['ALCSD', 'Alchemical Revolution Starter Decks', 110], ['MRC', 'Mercurial Heart', 190], ['AMB', 'Mortal Ambition', 221],
    ['AMBSD', 'Mortal Ambition Starter Decks', 63], ['REC-SHD', 'Re:Collection Shadowdancer', 34], ['REC-SLM', 'Re:Collection Slime Sovereign', 34],
    ['SP1', 'Supporter Pack 1', 27], ['SP2', 'Supporter Pack 2', 43], ['P22', 'Promotional 2022', 20], ['P23', 'Promotional 2023', 60],
    ['P24', 'Promotional 2024', 115], ['DEMO22', 'LGS Demo 2022', 20], ['DEMO23', 'LGS Demo 2023', 29], ['SLC', 'SquareLive Collaboration', 19],
    ['EVP', 'Event Packs', 14], ['KSP', 'Kickstarter Promotional', 8], ['PRXY', "Proxia's Vault", 7], ['GSC', 'GenSeCha', 5],
  ] as const
).map(([id, name, size]): SetSpec => ({ id, name, size, digits: 3, kind: id.startsWith('P') || id.startsWith('DEMO') || id === 'EVP' || id === 'KSP' ? 'promo' : id.endsWith('SD') ? 'starter' : 'booster' }));
const gaSets = () => withContinuation(GA_PLAN, (k) => ({ id: `EXP${k}`, name: `Expansion ${k}`, size: 220, digits: 3, kind: 'booster' }));

/** Booster sets whose cards are also reprinted in a starter-deck product. */
const GA_STARTER_REPRINTS: Readonly<Record<string, readonly [string, string]>> = {
  DOA1E: ['DOASD', 'Dawn of Ashes Starter Decks'],
  ALC: ['ALCSD', 'Alchemical Revolution Starter Decks'],
  AMB: ['AMBSD', 'Mortal Ambition Starter Decks'],
};
const gaImageUrl = (editionSlug: string) => `https://ga-index-public.s3.us-west-2.amazonaws.com/cards/${editionSlug}.jpg`;

const GA_ELEMENTS: ReadonlyArray<readonly [string, number]> = [['NORM', 30], ['FIRE', 12], ['WATER', 12], ['WIND', 12], ['ARCANE', 8], ['CRUX', 5], ['ASTRA', 5], ['UMBRA', 5], ['LUXEM', 4], ['TERA', 4], ['NEOS', 2], ['EXIA', 1]];
const GA_RACES = ['HUMAN', 'HUMAN', 'BEAST', 'ANIMAL', 'SPIRIT', 'AUTOMATON', 'SPECTER', 'FAIRY', 'SLIME', 'CHESSMAN', 'BIRD', 'DRAGON', 'ELF'];
const GA_SPELLISH = ['SPELL', 'SKILL', 'REACTION', 'POTION', 'CURSE', 'MELODY', 'DISTORTION', 'FRACTAL'];
const GA_WEAPONS = ['SWORD', 'DAGGER', 'POLEARM', 'GUN', 'BOW', 'STAFF', 'SCEPTER', 'HAMMER', 'FAN'];
const GA_GIVEN = ['Lorraine', 'Silvie', 'Rai', 'Tristan', 'Zander', 'Arisanna', 'Diana', 'Kongming', 'Guo Jia', 'Diao Chan', 'Tonoris', 'Jin', 'Dante', 'Vanitas', 'Nico', 'Mordred', 'Merlin', 'Nia', 'Lu Bu', 'Aithne', 'Polkhawk', 'Rococo', 'Kyra', 'Aurora', 'Clarice', 'Iris', 'Alice', 'Fiona', 'Tera', 'Maelis'];
const GA_EPITHETS = ['Wandering Warrior', 'Crescent Glaive', 'Spirit Blade', 'Storm Tyrant', "Fate's Crossroads", 'Earth Shaker', 'Herbalist', 'Silver Slime', 'Cursed Wanderer', 'Hemomancer', 'Prismatic Sage', 'Blightbringer', 'Frostbinder', 'Sunfire Sentinel', 'Ember Seeker', 'Tidewarden', 'Gale Dancer', 'Star Seer', 'Iron Regent', 'Verdant Oracle'];
const GA_ADJ = ['Arcane', 'Absolving', 'Aesan', 'Blazing', 'Creative', 'Embercrypt', 'Fiery', 'Heated', 'Peppered', 'Restorative', 'Searing', 'Vengeful', 'Vermilion', 'Liminal', 'Undying', 'Tempered', 'Gilded', 'Shimmering', 'Crimson', 'Frozen', 'Whispering', 'Distant', 'Baby', 'Ravaging', 'Silent', 'Honored', 'Veiled', 'Stormborn', 'Mercurial', 'Radiant'];
const GA_NOUN = ['Blast', 'Flames', 'Protector', 'Throw', 'Shock', 'Burn', 'Interference', 'Vengeance', 'Chef', 'Flame', 'Decree', 'Guide', 'Dreams', 'Truth', 'Paramour', 'Squire', 'Sentinel', 'Familiar', 'Wisp', 'Lancer', 'Archer', 'Golem', 'Missive', 'Tome', 'Lantern', 'Bulwark', 'Reverie', 'Requiem', 'Sigil', 'Slime'];
const GA_REGALIA = ['Scepter of Lumina', 'Clarent', 'Excalibur', 'Tome of Knowledge', 'Crest of Hope', 'Gem of Sorority', 'Cowl of the Wild', 'Gossamer Staff', "Bellona's Runestone", 'Map of Hidden Passage', 'Sword of Avalon', 'Ring of Alacrity', 'Obelisk of Protection', 'Lunar Conduit', 'Aetherwing Mantle'];
const GA_ILLUSTRATORS = ['道漫', '木叶', 'Primea Studio', 'Hanh Chu', '十尾', '砂木烟', 'Dragonart', 'Hori', 'Kaoru', 'Mo Xiang', 'Nanfe', 'Yen Hua'];
const GA_RARITY_BY_WEIGHT: ReadonlyArray<readonly [GrandArchiveCardArt['rarity'], number]> = [['C', 34], ['U', 22], ['R', 17], ['SR', 11], ['UR', 2], ['PR', 8]];

function gaEffect(rng: Rng, className: string | undefined, element: string): string {
  const clause = () =>
    rng.pick([
      () => `Draw ${plural(rng.int(1, 2), 'card')}.`,
      () => `Deal ${rng.int(2, 6)} damage to target unit.`,
      () => `Target ally gets +${rng.int(1, 3)} POWER until end of turn.`,
      () => `Recover ${rng.int(2, 8)}.`,
      () => `Banish up to ${rng.int(1, 4)} cards from your graveyard. Put a buff counter on target ally you control.`,
      () => `You may glimpse ${rng.int(2, 4)}. (Look at the top cards of your deck and put them back in any order.)`,
      () => `Summon a ${rng.pick(['Powercell', 'Spirit Shard', 'Ominous Shadow', 'Aetherwisp'])} token.`,
      () => `Prevent the next ${rng.int(2, 5)} damage that would be dealt to target champion this turn.`,
      () => `Return target ${element.toLowerCase()} element card from your graveyard to your hand.`,
    ])();
  const parts: string[] = [];
  if (rng.chance(0.35)) parts.push(rng.pick(GA_KEYWORDS));
  parts.push(rng.chance(0.4) ? `On Enter: ${clause()}` : clause());
  if (rng.chance(0.6)) {
    parts.push(
      className
        ? `[Class Bonus] ${clause()} (Apply this effect only if your champion's class matches this card's class.)`
        : `[${element.charAt(0)}${element.slice(1).toLowerCase()} Bonus] ${clause()}`,
    );
  }
  if (rng.chance(0.25)) parts.push(`[Level ${rng.int(1, 3)}+] ${clause()}`);
  return parts.join('\n\n');
}

const GA_KEYWORDS = [
  'Intercept (Whenever your champion is attacked while this ally is awake, you may redirect that attack to this ally.)',
  'Floating Memory (This card can be banished from your graveyard to pay for memory costs.)',
  'Stealth (This object can\'t be targeted by your opponents\' effects unless they are attacking it.)',
  'Vigor (This ally can attack or activate abilities the turn it enters the field.)',
  'Spellshroud (This object can\'t be the target of Spells.)',
  'Cleave (This attack deals its damage to each unit the target controls.)',
];
type GaShape = 'CHAMPION' | 'ALLY' | 'UNIQUE ALLY' | 'ACTION' | 'ATTACK' | 'ITEM' | 'REGALIA ITEM' | 'REGALIA WEAPON' | 'PHANTASIA' | 'DOMAIN' | 'TOKEN';
const GA_SHAPES: ReadonlyArray<readonly [GaShape, number]> = [
  ['ACTION', 33], ['ALLY', 23], ['UNIQUE ALLY', 5], ['REGALIA ITEM', 10], ['ATTACK', 5], ['CHAMPION', 5], ['REGALIA WEAPON', 4], ['ITEM', 4], ['PHANTASIA', 4], ['DOMAIN', 2], ['TOKEN', 2],
];

function gaCard(rng: Rng, set: SetSpec, n: number, usedSlugs: Map<string, number>): GrandArchiveCard {
  const shape = rng.weighted(GA_SHAPES);
  const element = rng.weighted(GA_ELEMENTS);
  const className = shape === 'TOKEN' || rng.chance(0.25) ? undefined : rng.pick(GRAND_ARCHIVE_CLASSES.filter((c) => c !== 'SPIRIT'));
  const types =
    shape === 'UNIQUE ALLY' ? ['UNIQUE', 'ALLY'] : shape === 'REGALIA ITEM' ? ['REGALIA', 'ITEM'] : shape === 'REGALIA WEAPON' ? ['REGALIA', 'WEAPON'] : shape === 'TOKEN' ? ['TOKEN', rng.pick(['ALLY', 'PHANTASIA', 'ITEM'])] : [shape];
  const subtypes = [
    ...(className ? [className] : []),
    ...(shape.includes('ALLY') || shape === 'CHAMPION' ? [rng.pick(GA_RACES)] : []),
    ...(shape === 'ACTION' || shape === 'ATTACK' ? [rng.pick(GA_SPELLISH)] : []),
    ...(shape === 'REGALIA WEAPON' ? [rng.pick(GA_WEAPONS)] : []),
  ].filter((v, i, all) => all.indexOf(v) === i);
  const material = shape === 'CHAMPION' || shape.startsWith('REGALIA');
  const deckZone: GrandArchiveCard['deckZone'] = shape === 'TOKEN' ? null : material ? 'material' : 'main';

  let name =
    shape === 'CHAMPION' ? `${rng.pick(GA_GIVEN)}, ${rng.pick(GA_EPITHETS)}`
    : shape.startsWith('REGALIA') ? rng.pick(GA_REGALIA)
    : `${rng.pick(GA_ADJ)} ${rng.pick(GA_NOUN)}`;
  // Names repeat in large catalogs; the slug must not. Later namesakes become "Name II", "Name III"…
  // with slugs "name-2", "name-3"… (pool names never end in a digit, so these cannot clash).
  const base = slugify(name);
  const seen = usedSlugs.get(base) ?? 0;
  usedSlugs.set(base, seen + 1);
  const id = seen === 0 ? base : `${base}-${seen + 1}`;
  if (seen > 0) name = `${name} ${toRoman(seen + 1)}`;

  const level = shape === 'CHAMPION' ? rng.int(0, 3) : null;
  const cost = shape === 'CHAMPION' ? (level === 0 ? 0 : rng.int(1, 3)) : shape === 'TOKEN' ? (rng.chance(0.5) ? rng.int(0, 2) : null) : material ? rng.int(0, 3) : rng.weighted([[0, 10], [1, 11], [2, 25], [3, 24], [4, 14], [5, 6], [6, 5], [7, 3], [8, 2]] as const);
  const isUnit = shape.includes('ALLY') || (shape === 'TOKEN' && types[1] === 'ALLY');

  const editions: GrandArchiveCardArt[] = [];
  const rarity = set.kind === 'promo' ? 'PR' : shape === 'CHAMPION' || shape.startsWith('REGALIA') ? rng.pick(['R', 'SR', 'SR', 'UR'] as const) : rng.weighted(GA_RARITY_BY_WEIGHT.filter(([r]) => r !== 'PR'));
  const illustrator = rng.pick(GA_ILLUSTRATORS);
  const edition = (setId: string, setName: string, type: GrandArchiveCardArt['type'], r: GrandArchiveCardArt['rarity'], number: number, suffix = '') => {
    const slug = `${id}-${setId.toLowerCase()}${suffix}`;
    editions.push({ id: slug, type, url: gaImageUrl(slug), setId, setName, collectorNumber: pad(number, 3), rarity: r, illustrator: rng.chance(0.97) ? illustrator : null });
  };
  edition(set.id, set.name, set.id.endsWith('1E') ? 'First Edition' : 'Standard', rarity, n);
  if (set.id === 'DOA1E' && rng.chance(0.9)) edition('DOA-ALTER', 'Dawn of Ashes Alter Edition', 'Alter Edition', rarity, n);
  const starter = GA_STARTER_REPRINTS[set.id];
  if (starter && rng.chance(0.3)) edition(starter[0], starter[1], 'Standard', rarity, rng.int(1, 110));
  if (rng.chance(0.06)) {
    const year = rng.int(22, 24);
    edition(`P${year}`, `Promotional 20${year}`, 'Standard', 'PR', rng.int(1, 115));
  }
  if (rng.chance(0.05)) edition(set.id, set.name, 'Collector', rng.pick(['CSR', 'CUR'] as const), n, '-csr');
  // Keep edition ids unique (a promo can be drawn twice).
  const arts = editions.filter((e, i) => editions.findIndex((o) => o.id === e.id) === i);
  const main = arts[0]!;

  return {
    id,
    objectID: id,
    name,
    types,
    subtypes,
    typeLine: types.join(' / '),
    classes: className ? [className] : [],
    element,
    deckZone,
    cost,
    costKind: deckZone === null ? null : material ? 'memory' : 'reserve',
    level,
    effect: shape === 'TOKEN' && rng.chance(0.3) ? '' : gaEffect(rng, className, element),
    setId: main.setId,
    setName: main.setName,
    rarity: main.rarity,
    cardImageUrl: main.url,
    hasAltArt: arts.length > 1,
    uuid: randomUuid(rng),
    power: isUnit || shape === 'ATTACK' || shape === 'REGALIA WEAPON' ? rng.int(1, 6) : null,
    life: isUnit ? rng.int(1, 6) : shape === 'CHAMPION' ? rng.int(14, 28) : null,
    durability: shape === 'REGALIA WEAPON' || shape === 'ITEM' ? rng.int(1, 4) : null,
    speed: shape === 'ACTION' || shape === 'ATTACK' ? (rng.chance(0.35) ? 'Fast' : 'Slow') : null,
    illustrator: main.illustrator,
    cardArts: arts,
  };
}

const slugify = (name: string) => name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const ROMAN: ReadonlyArray<readonly [number, string]> = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];
function toRoman(n: number): string {
  let out = '';
  for (const [value, numeral] of ROMAN) for (; n >= value; n -= value) out += numeral;
  return out;
}
const UUID_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const randomUuid = (rng: Rng) => Array.from({ length: 10 }, () => UUID_ALPHABET.charAt(rng.int(0, UUID_ALPHABET.length - 1))).join('');

// ---------------------------------------------------------------------------------------------
// Chrono Core
// ---------------------------------------------------------------------------------------------

/** No official set names are published in any source snapdeck has; these are labels, not titles. */
export const CHRONO_CORE_SET_NAMES: Readonly<Record<string, string>> = {
  WNR01: 'WNR01 Booster',
  SD01: 'SD01 Starter Deck',
  SD03: 'SD03 Starter Deck',
};
const CHRONO_PLAN: readonly SetSpec[] = [
  { id: 'WNR01', name: CHRONO_CORE_SET_NAMES.WNR01 ?? 'WNR01', size: 330, digits: 3, kind: 'booster' },
  { id: 'SD01', name: CHRONO_CORE_SET_NAMES.SD01 ?? 'SD01', size: 35, digits: 3, kind: 'starter' },
  { id: 'SD03', name: CHRONO_CORE_SET_NAMES.SD03 ?? 'SD03', size: 35, digits: 3, kind: 'starter' },
];
/** Ids are `<letters><2 digits>-<3 digits>`, so made-up sets cycle through prefixes WNR02…WNR99, CRX01…, … */
const CHRONO_PREFIXES = ['WNR', 'CRX', 'TMP', 'PRX', 'ZNT'];
const chronoSets = () =>
  withContinuation(CHRONO_PLAN, (k) => {
    const prefix = CHRONO_PREFIXES[Math.floor((k - 1) / 98)];
    if (!prefix) return undefined;
    const id = `${prefix}${pad(((k - 1) % 98) + 2, 2)}`;
    return { id, name: `${id} Booster`, size: 330, digits: 3, kind: 'booster' };
  });

export const chronoCoreImageUrl = (setId: string, id: string) => `https://cdn.sleeved.gg/cards/chrono-core/${setId}/${id}.webp`;

/**
 * Cards seen in the real Sleeved exports (raw/chrono-core): id, printed name (null: the export
 * gave only the id) and whether it was in the starting loadout. The generated catalog gives these
 * ids the same name and type the importer infers, so the real deck exports resolve against it.
 */
const KNOWN_CHRONO_CARDS: ReadonlyArray<readonly [string, string | null, boolean]> = [
  ['SD01-012', null, false], ['SD01-026', 'Overwhelm', false], ['SD01-027', null, false], ['SD01-028', null, false],
  ['SD01-029', 'Disengage', false], ['SD01-030', null, false], ['SD01-031', 'Maintenance Hangar', false], ['SD01-032', 'Shield Drone', false],
  ['SD01-033', 'Orbital Devastation', false], ['SD03-002', null, true], ['SD03-004', null, true], ['SD03-007', null, true],
  ['SD03-010', null, false], ['WNR01-001', 'Allura Nekris', true], ['WNR01-002', 'Basilisk Core V.1', true], ['WNR01-003', null, true],
  ['WNR01-004', null, false], ['WNR01-009', 'Basilisk Visor V1', true], ['WNR01-010', 'Basilisk Greaves V.1', true], ['WNR01-011', 'Basilisk Gauntlets V.1', false],
  ['WNR01-012', 'Basilisk Greaves V.1', false], ['WNR01-013', 'Basilisk Gauntlets V.1', true], ['WNR01-014', 'Basilisk Visor V.1', false], ['WNR01-015', 'Basilisk Visor V.1', false],
  ['WNR01-017', 'Basilisk Gauntlets V.1', false], ['WNR01-018', 'Basilisk Greaves V.1', false], ['WNR01-020', 'Basilisk Visor V.1', false], ['WNR01-021', null, true],
  ['WNR01-022', 'Temporal Spike V.1', false], ['WNR01-023', 'All Consuming V.1', false], ['WNR01-024', 'All Consuming V.1', false], ['WNR01-025', 'The Fang V.1', true],
  ['WNR01-026', 'All Consuming V.1', false], ['WNR01-027', 'Temporal Spike V.1', false], ['WNR01-028', 'The Fang V.1', false], ['WNR01-029', 'The Fang V.1', false],
  ['WNR01-032', null, true], ['WNR01-033', null, false], ['WNR01-034', null, false], ['WNR01-036', null, true],
  ['WNR01-037', null, false], ['WNR01-040', null, false], ['WNR01-041', null, false], ['WNR01-042', null, false],
  ['WNR01-051', null, false], ['WNR01-067', null, false], ['WNR01-098', 'Core Control', false], ['WNR01-100', null, false],
  ['WNR01-101', 'Core Override', false], ['WNR01-102', 'Overcharge', false], ['WNR01-103', 'Retribution', false], ['WNR01-106', 'Scry', false],
  ['WNR01-107', null, false], ['WNR01-109', 'Or Maybe Two', false], ['WNR01-113', 'Upgrade Protocol', false], ['WNR01-116', 'Memory Wipe', false],
];
const knownChrono = new Map(KNOWN_CHRONO_CARDS.map(([id, name, loadout]) => [id, { name, loadout }]));

const SLOT_WORDS: ReadonlyArray<readonly [RegExp, ChronoCoreCard['slot']]> = [
  [/\bCore\b/, 'Frame'], [/\bVisor\b/, 'Head'], [/\bGauntlets\b/, 'Arms'], [/\bGreaves\b/, 'Legs'],
];
const VERSIONED = /\bV\.?\d+$/;

/** Placeholder name of a card known only by its id. */
export const chronoCorePlaceholderName = (id: string) => `Unknown Card ${id}`;

/**
 * Type and slot of a real Chrono Core card from what the exports show. Loadout cards are Core or
 * Pilot (decisions.md "Zones": exactly those start in the loadout): a loadout card named like a
 * person (no version mark, no part word) is the Pilot, every other one a Core piece; a versioned
 * piece naming no body part is the loadout's weapon (the text export's loadout is a pilot, a core,
 * a visor, greaves, gauntlets and "The Fang V.1"). Outside the loadout, versioned cards are
 * Upgrades, "Drone" names Drones, "Hangar"/"Station" names Structures, the rest Tactics.
 * Cards known only by id get Core in the loadout and Tactic elsewhere: nothing more is known.
 */
export function inferChronoCoreCard(name: string | null, seenInLoadout: boolean): Pick<ChronoCoreCard, 'cardType' | 'slot'> {
  // Only versioned names are mech parts ("Basilisk Core V.1"); "Core Control" is a tactic.
  const versioned = name !== null && VERSIONED.test(name);
  const slot = versioned ? (SLOT_WORDS.find(([re]) => re.test(name))?.[1] ?? 'Weapon') : null;
  if (seenInLoadout) {
    if (name !== null && !versioned) return { cardType: 'Pilot', slot: null };
    return { cardType: 'Core', slot };
  }
  if (name === null) return { cardType: 'Tactic', slot: null };
  if (slot !== null) return { cardType: 'Upgrade', slot };
  if (/\bDrone\b/.test(name)) return { cardType: 'Drone', slot: null };
  if (/\b(?:Hangar|Station|Array|Outpost)\b/.test(name)) return { cardType: 'Structure', slot: null };
  return { cardType: 'Tactic', slot: null };
}

const MECH_SERIES = ['Basilisk', 'Wyvern', 'Chimera', 'Hydra', 'Manticore', 'Gorgon', 'Kraken', 'Roc', 'Cerberus', 'Griffin', 'Leviathan', 'Harpy'];
const PART_NAMES: ReadonlyArray<readonly [string, ChronoCoreCard['slot']]> = [['Core', 'Frame'], ['Visor', 'Head'], ['Gauntlets', 'Arms'], ['Greaves', 'Legs']];
const WEAPON_NAMES = ['The Fang', 'Temporal Spike', 'All Consuming', 'Void Lance', 'Solar Edge', 'Ion Hammer', 'Rift Cannon', 'Chrono Blade'];
const PILOT_FIRST = ['Allura', 'Kael', 'Mira', 'Dax', 'Sera', 'Orin', 'Vex', 'Lyra', 'Tarik', 'Nova', 'Juno', 'Rhea', 'Cass', 'Ezra'];
const PILOT_LAST = ['Nekris', 'Voss', 'Calder', 'Marrow', 'Stellan', 'Quill', 'Ashgrove', 'Thorne', 'Kestrel', 'Vale', 'Ironside', 'Sato'];
const TACTIC_A = ['Core', 'Temporal', 'Orbital', 'Memory', 'Upgrade', 'Emergency', 'Phase', 'Overclock', 'Signal', 'Kinetic', 'Tactical', 'Shield'];
const TACTIC_B = ['Control', 'Override', 'Devastation', 'Wipe', 'Protocol', 'Reroute', 'Shift', 'Surge', 'Jam', 'Recall', 'Feint', 'Pulse'];
const CHRONO_TRAITS = ['Basilisk', 'Temporal', 'Aegis', 'Syndicate', 'Vanguard', 'Drone', 'Frontier', 'Rogue AI'];
const CHRONO_CLAUSES = [
  (rng: Rng) => `Deal ${rng.int(1, 4)} damage to an enemy Core.`,
  (rng: Rng) => `Draw ${plural(rng.int(1, 2), 'card')}.`,
  (rng: Rng) => `Your mech gets +${rng.int(1, 3)} power until end of turn.`,
  (rng: Rng) => `Rewind ${rng.int(1, 2)}: return a card from your scrapyard to the top of your deck.`,
  (rng: Rng) => `Destroy target Drone with ${rng.int(1, 3)} or less health.`,
  () => 'Scry 2. (Look at the top 2 cards of your deck, then put any number of them on the bottom.)',
  (rng: Rng) => `Gain ${rng.int(1, 2)} energy. Overcharge: gain 1 more.`,
  (rng: Rng) => `Replace one of your loadout parts with an Upgrade of the same slot from your hand. It costs ${rng.int(1, 2)} less.`,
];

function chronoEffect(rng: Rng, cardType: ChronoCoreCardType): string {
  const timing = cardType === 'Tactic' ? rng.pick(['[Action]', '[Reaction]', '[Action]']) : rng.pick(['[Deploy]', '[Passive]', '[Activate]', '[On Hit]']);
  const lines = [`${timing} ${rng.pick(CHRONO_CLAUSES)(rng)}`];
  if (rng.chance(0.45)) lines.push(`${rng.pick(['[Passive]', '[Overclock]', '[On Destroyed]'])} ${rng.pick(CHRONO_CLAUSES)(rng)}`);
  return lines.join('\n');
}

function chronoCard(rng: Rng, set: SetSpec, n: number): ChronoCoreCard {
  const id = cardNumber(set, n);
  const known = knownChrono.get(id);
  const series = MECH_SERIES[Math.floor((n - 1) / 30) % MECH_SERIES.length] ?? 'Basilisk';
  let name: string;
  let cardType: ChronoCoreCardType;
  let slot: ChronoCoreCard['slot'];
  if (known) {
    ({ cardType, slot } = inferChronoCoreCard(known.name, known.loadout));
    name = known.name ?? chronoCorePlaceholderName(id);
  } else {
    // Each block of 30 numbers is one mech series: its pilot, core pieces, upgrades and weapons
    // first, then drones, structures and tactics, as in WNR01-001…029 of the real exports.
    const pos = (n - 1) % 30;
    cardType = pos === 0 ? 'Pilot' : pos < 6 ? 'Core' : pos < 16 ? 'Upgrade' : rng.weighted([['Tactic', 62], ['Drone', 22], ['Structure', 8], ['Upgrade', 8]] as const);
    const part = rng.pick(PART_NAMES);
    const weapon = pos === 5 || (cardType === 'Upgrade' && rng.chance(0.3));
    slot = cardType === 'Core' || cardType === 'Upgrade' ? (weapon ? 'Weapon' : pos === 1 ? 'Frame' : part[1]) : null;
    const version = cardType === 'Core' ? 'V.1' : `V.${rng.int(1, 3)}`;
    name =
      cardType === 'Pilot' ? `${rng.pick(PILOT_FIRST)} ${rng.pick(PILOT_LAST)}`
      : slot === 'Weapon' ? `${rng.pick(WEAPON_NAMES)} ${version}`
      : slot !== null ? `${series} ${PART_NAMES.find(([, s]) => s === slot)?.[0] ?? part[0]} ${version}`
      : cardType === 'Drone' ? `${rng.pick(['Shield', 'Scout', 'Repair', 'Strike', 'Decoy'])} Drone`
      : cardType === 'Structure' ? `${rng.pick(['Maintenance', 'Relay', 'Defense', 'Salvage'])} ${rng.pick(['Hangar', 'Station', 'Array', 'Outpost'])}`
      : `${rng.pick(TACTIC_A)} ${rng.pick(TACTIC_B)}`;
  }
  const unknown = known !== undefined && known.name === null;
  const hasBody = cardType === 'Core' || cardType === 'Upgrade' || cardType === 'Drone' || cardType === 'Structure' || cardType === 'Pilot';
  return {
    id,
    objectID: id,
    cardNumber: id,
    name,
    cardType,
    slot,
    traits: rng.sample(CHRONO_TRAITS, rng.int(0, 2)),
    cost: cardType === 'Core' || cardType === 'Pilot' ? 0 : rng.int(0, 6),
    power: hasBody && cardType !== 'Structure' ? rng.int(0, 5) : null,
    health: hasBody ? rng.int(1, cardType === 'Core' ? 8 : 5) : null,
    effect: unknown && rng.chance(0.2) ? '' : chronoEffect(rng, cardType),
    rarity: set.kind === 'starter' ? 'C' : rng.weighted([['C', 45], ['U', 28], ['R', 18], ['SR', 7], ['SCR', 2]] as const),
    setId: set.id,
    setName: set.name,
    setOrder: n,
    cardImageUrl: chronoCoreImageUrl(set.id, id),
    hasAltArt: false,
    cardArts: [{ id, type: 'Standard', url: chronoCoreImageUrl(set.id, id) }],
  };
}

// ---------------------------------------------------------------------------------------------
// Catalog generation and writing
// ---------------------------------------------------------------------------------------------

/** Cards of the default catalog of each game (the real games' size). */
export function defaultCount(game: GameSlug): number {
  const plan = { digimon: DIGIMON_PLAN, gundam: GUNDAM_PLAN, 'grand-archive': GA_PLAN, 'chrono-core': CHRONO_PLAN }[game];
  let total = 0;
  for (const set of plan) total += set.size;
  return total;
}

export interface GenerateOptions {
  game: GameSlug;
  /** Number of cards (default: the real game's size, see defaultCount). */
  count?: number;
  seed?: number;
}

/** Lazily yields `count` valid cards of one game; iterate it once (it is a generator). */
export function* generateCatalog({ game, count = defaultCount(game), seed = DEFAULT_SEED }: GenerateOptions): Generator<AnyCard> {
  const gameIndex = GAME_SLUGS.indexOf(game);
  const sets = { digimon: digimonSets, gundam: gundamSets, 'grand-archive': gaSets, 'chrono-core': chronoSets }[game]();
  const usedSlugs = new Map<string, number>();
  let produced = 0;
  for (const set of sets) {
    for (let n = 1; n <= set.size; n += 1) {
      if (produced >= count) return;
      const rng = new Rng(mixSeed(seed, gameIndex, produced));
      produced += 1;
      if (game === 'digimon') yield digimonCard(rng, set, n);
      else if (game === 'gundam') yield gundamCard(rng, set, n);
      else if (game === 'grand-archive') yield gaCard(rng, set, n, usedSlugs);
      else yield chronoCard(rng, set, n);
    }
  }
  if (produced < count) throw new Error(`${game}: cannot generate ${count} cards, card ids run out after ${produced}`);
}

export interface WriteResult {
  file: string;
  cards: number;
  bytes: number;
  withAltArt: number;
}

const BATCH_BYTES = 1 << 20;

/**
 * Validates every card against the game's schema and writes them as JSON Lines. The file appears
 * only when complete (written beside it, then renamed), so a reader never sees half a catalog.
 * Throws on the first invalid or duplicate card, naming it and the reason.
 */
export function writeCatalogFile(file: string, game: GameSlug, cards: Iterable<unknown>): WriteResult {
  const model = CARD_MODELS[game];
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial-${process.pid}`;
  const fd = openSync(partial, 'w');
  const seen = new Set<string>();
  let batch: string[] = [];
  let batchBytes = 0;
  let count = 0;
  let bytes = 0;
  let withAltArt = 0;
  const flush = () => {
    if (batch.length === 0) return;
    const text = batch.join('');
    writeSync(fd, text);
    bytes += Buffer.byteLength(text);
    batch = [];
    batchBytes = 0;
  };
  try {
    for (const card of cards) {
      const parsed = model.card.safeParse(card);
      const id = (card as { id?: unknown }).id;
      if (!parsed.success) {
        const reasons = parsed.error.issues.map((i) => `${i.path.join('.') || '(card)'}: ${i.message}`).join('; ');
        throw new Error(`${game} card #${count + 1} (${String(id)}) does not match the schema: ${reasons}`);
      }
      if (seen.has(parsed.data.id)) throw new Error(`${game} card #${count + 1}: duplicate id ${parsed.data.id}`);
      seen.add(parsed.data.id);
      if ((card as { hasAltArt?: unknown }).hasAltArt === true) withAltArt += 1;
      const line = `${JSON.stringify(card)}\n`;
      batch.push(line);
      batchBytes += line.length;
      count += 1;
      if (batchBytes >= BATCH_BYTES) flush();
    }
    flush();
    closeSync(fd);
    renameSync(partial, file);
  } catch (error) {
    closeSync(fd);
    rmSync(partial, { force: true });
    throw error;
  }
  return { file, cards: count, bytes, withAltArt };
}

/** Writes the default catalog of every game (what `npm run generate` writes) into `dir`. */
export function writeDefaultCatalog(dir: string = DEFAULT_CATALOG_DIR, seed: number = DEFAULT_SEED): WriteResult[] {
  return GAME_SLUGS.map((game) => writeCatalogFile(join(dir, `${game}.jsonl`), game, generateCatalog({ game, seed })));
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

interface CliOptions {
  out: string;
  seed: number;
  games: GameSlug[];
  scaleDigimon: number;
  count: number | undefined;
}

const USAGE = 'usage: npx tsx scripts/generate-catalog.ts [--out DIR] [--seed N] [--game SLUG]... [--scale-digimon F] [--count N]';

function parseArgs(argv: readonly string[]): CliOptions {
  const options: CliOptions = { out: DEFAULT_CATALOG_DIR, seed: DEFAULT_SEED, games: [], scaleDigimon: 1, count: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    i += 1;
    const number = Number(value);
    switch (flag) {
      case '--out': options.out = resolve(value); break;
      case '--seed':
        if (!Number.isSafeInteger(number)) throw new Error(`--seed must be an integer, got ${value}`);
        options.seed = number;
        break;
      case '--game':
        if (!isGameSlug(value)) throw new Error(`--game must be one of ${GAME_SLUGS.join(', ')}, got ${value}`);
        options.games.push(value);
        break;
      case '--scale-digimon':
        if (!(number > 0)) throw new Error(`--scale-digimon must be a positive number, got ${value}`);
        options.scaleDigimon = number;
        break;
      case '--count':
        if (!Number.isSafeInteger(number) || number < 0) throw new Error(`--count must be a non-negative integer, got ${value}`);
        options.count = number;
        break;
      default: throw new Error(`unknown option ${flag}\n${USAGE}`);
    }
  }
  if (options.games.length === 0) options.games = [...GAME_SLUGS];
  return options;
}

function main(argv: readonly string[]): void {
  const options = parseArgs(argv);
  for (const game of options.games) {
    const started = performance.now();
    const count = options.count ?? (game === 'digimon' ? Math.round(defaultCount(game) * options.scaleDigimon) : defaultCount(game));
    const result = writeCatalogFile(join(options.out, `${game}.jsonl`), game, generateCatalog({ game, count, seed: options.seed }));
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const mb = (result.bytes / 1e6).toFixed(1);
    console.log(`${game}: ${result.cards} cards (${result.withAltArt} with alt arts) -> ${relative(process.cwd(), result.file) || result.file} (${mb} MB) in ${seconds}s, seed ${options.seed}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`generate-catalog: ${(error as Error).message}`);
    process.exit(1);
  }
}
