/** Chrono Core: sets, mechs, pilots and tactics shaped like the Sleeved exports. */
import type { ChronoCoreCard, ChronoCoreCardType } from '@snapdeck/contract';
import type { Rng } from '../lib/prng.ts';
import { cardNumber, pad, plural, withContinuation, type GameGenerator, type SetSpec } from './common.ts';

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
/** Ids the real exports show without a name: left out, as the real catalog leaves them out. */
export const CHRONO_CORE_UNNAMED_IDS: ReadonlySet<string> = new Set(KNOWN_CHRONO_CARDS.filter(([, name]) => name === null).map(([id]) => id));

const SLOT_WORDS: ReadonlyArray<readonly [RegExp, ChronoCoreCard['slot']]> = [
  [/\bCore\b/, 'Frame'], [/\bVisor\b/, 'Head'], [/\bGauntlets\b/, 'Arms'], [/\bGreaves\b/, 'Legs'],
];
const VERSIONED = /\bV\.?\d+$/;

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
    name = known.name ?? id; // not reached: ids without a name are `absent`
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
    effect: chronoEffect(rng, cardType),
    rarity: set.kind === 'starter' ? 'C' : rng.weighted([['C', 45], ['U', 28], ['R', 18], ['SR', 7], ['SCR', 2]] as const),
    setId: set.id,
    setName: set.name,
    setOrder: n,
    cardImageUrl: chronoCoreImageUrl(set.id, id),
    hasAltArt: false,
    cardArts: [{ id, type: 'Standard', url: chronoCoreImageUrl(set.id, id) }],
  };
}

export const chronoCore: GameGenerator<ChronoCoreCard> = { plan: CHRONO_PLAN, sets: chronoSets, cards: () => chronoCard, absent: CHRONO_CORE_UNNAMED_IDS };
