/** Grand Archive: sets, editions and effects shaped like the real catalog. */
import { GRAND_ARCHIVE_CLASSES, ZONE, type GrandArchiveCard, type GrandArchiveCardArt } from '@snapdeck/contract';
import type { Rng } from '../lib/prng.ts';
import { pad, plural, withContinuation, type GameGenerator, type SetSpec } from './common.ts';

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
  const deckZone: GrandArchiveCard['deckZone'] = shape === 'TOKEN' ? null : material ? ZONE.material : ZONE.main;

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

export const grandArchive: GameGenerator<GrandArchiveCard> = { plan: GA_PLAN, sets: gaSets, cards: () => {
    // Names repeat across sets; a repeated name gets a numbered slug, so ids stay unique per catalog.
    const usedSlugs = new Map<string, number>();
    return (rng, set, n) => gaCard(rng, set, n, usedSlugs);
  } };
