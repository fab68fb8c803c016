import { ZONE, type GameSlug, type ZoneId } from '@snapdeck/contract';
import type { DeckImportLine } from '@snapdeck/store';

/**
 * Deterministic deck generator (seeded PRNG): import lines for tests, benchmarks and the demo
 * seed. The same seed always yields the same decks, ids included, so re-importing them upserts
 * instead of duplicating.
 */

/** mulberry32: tiny, fast, good enough for test data (not for secrets). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A UUID v4 drawn from `random` (version and variant bits set as RFC 9562 requires). */
export function uuidFrom(random: () => number): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i++) bytes[i] = Math.floor(random() * 256);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface ZoneTemplate {
  /** null: entries stored without a zone (resolution decides when served). */
  zoneId: ZoneId | null;
  cards: readonly string[];
  /** Distinct entries drawn for the zone, inclusive range. */
  entries: readonly [number, number];
  quantity: readonly [number, number];
}

export interface GameTemplate {
  gameId: GameSlug;
  zones: readonly ZoneTemplate[];
  /** Decks of this template per cycle through the templates (default 1). */
  weight?: number;
}

/** An import line with every counter set. */
export type GeneratedDeck = DeckImportLine & Required<Pick<DeckImportLine, 'copyCount' | 'viewCount' | 'likeCount'>>;

export interface GenerateOptions {
  seed: number;
  count: number;
  templates: readonly GameTemplate[];
  /** Share of private decks, 0 to 1. Default 0.1. */
  privateShare?: number;
  /** createdAt is drawn from [from, to) (epoch ms); updatedAt from [createdAt, to). */
  from?: number;
  to?: number;
}

const ADJECTIVES = ['Blazing', 'Silent', 'Crimson', 'Frozen', 'Rapid', 'Royal', 'Hidden', 'Iron', 'Golden', 'Shadow', 'Wild', 'Lucky', 'Storm', 'Ancient'];
const NOUNS = ['Tempo', 'Control', 'Aggro', 'Midrange', 'Combo', 'Ramp', 'Rush', 'Toolbox', 'Fortress', 'Engine', 'Gambit', 'Swarm'];
const OWNERS = ['kaito', 'mira_plays', 'DeckSmith', 'ravenclaw', 'TCG Tom', 'ayumi', 'lucas.b', 'NightOwl', 'sana', 'PilotZero', 'greenmage', 'o_brien'];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function between(random: () => number, [low, high]: readonly [number, number]): number {
  return low + Math.floor(random() * (high - low + 1));
}

/** A skewed counter: most decks have few copies/views/likes, a few have many. */
function popularity(random: () => number, scale: number): number {
  return Math.floor(scale * random() ** 4);
}

export function* generateDecks(options: GenerateOptions): Generator<GeneratedDeck> {
  const random = prng(options.seed);
  const privateShare = options.privateShare ?? 0.1;
  const to = options.to ?? Date.UTC(2026, 0, 1);
  const from = options.from ?? to - 365 * 86_400_000;
  // Templates take turns, each `weight` times per cycle, so the mix is exact and not left to chance.
  const cycle = options.templates.flatMap((template) => Array.from({ length: template.weight ?? 1 }, () => template));
  for (let i = 0; i < options.count; i++) {
    const template = cycle[i % cycle.length]!;
    const cards: GeneratedDeck['cards'] = [];
    for (const zone of template.zones) {
      if (zone.cards.length === 0) continue;
      const wanted = Math.min(between(random, zone.entries), zone.cards.length);
      const used = new Set<string>();
      while (used.size < wanted) {
        const cardId = pick(random, zone.cards);
        if (used.has(cardId)) continue;
        used.add(cardId);
        const quantity = between(random, zone.quantity);
        cards.push(zone.zoneId === null ? { cardId, quantity } : { cardId, quantity, zoneId: zone.zoneId });
      }
    }
    // Whole seconds on purpose: many decks share a timestamp, which exercises the id tie-break.
    const createdAt = from + Math.floor(random() * ((to - from) / 1000)) * 1000;
    const updatedAt = random() < 0.3 ? createdAt : createdAt + Math.floor(random() * ((to - createdAt) / 1000)) * 1000;
    const views = popularity(random, 5000);
    yield {
      id: uuidFrom(random),
      gameId: template.gameId,
      name: `${pick(random, ADJECTIVES)} ${pick(random, NOUNS)}`,
      ownerDisplayName: pick(random, OWNERS),
      visibility: random() < privateShare ? 'private' : 'public',
      createdAt: new Date(createdAt).toISOString(),
      updatedAt: new Date(updatedAt).toISOString(),
      copyCount: Math.floor(views * random() * 0.1),
      viewCount: views,
      likeCount: Math.floor(views * random() * 0.2),
      cards,
    };
  }
}

/** The same decks as import lines. */
export function* generateDeckLines(options: GenerateOptions): Generator<string> {
  for (const deck of generateDecks(options)) yield JSON.stringify(deck);
}

function ids(prefix: string, sets: number, perSet: number, digits: number): string[] {
  const out: string[] = [];
  for (let s = 1; s <= sets; s++) for (let n = 1; n <= perSet; n++) out.push(`${prefix}${String(s).padStart(2, '0')}-${String(n).padStart(digits, '0')}`);
  return out;
}

/**
 * Templates with made-up card ids shaped like each game's, for tests and benchmarks that need no
 * catalog. Entry counts are those of real decks (about 15 to 35 distinct entries per deck).
 */
export const SYNTHETIC_TEMPLATES: readonly GameTemplate[] = [
  {
    gameId: 'digimon',
    zones: [
      { zoneId: ZONE.digiEgg, cards: ids('BT', 5, 6, 3), entries: [1, 3], quantity: [1, 4] },
      { zoneId: ZONE.main, cards: ids('BT', 20, 100, 3), entries: [12, 18], quantity: [1, 4] },
    ],
  },
  {
    gameId: 'gundam',
    zones: [
      { zoneId: ZONE.main, cards: ids('GD', 4, 120, 3), entries: [12, 16], quantity: [2, 4] },
      { zoneId: ZONE.resource, cards: ['R-001', 'R-002', 'R-003'], entries: [1, 1], quantity: [10, 10] },
    ],
  },
  {
    gameId: 'grand-archive',
    zones: [
      { zoneId: ZONE.material, cards: Array.from({ length: 200 }, (_, i) => `material-card-${i + 1}`), entries: [10, 12], quantity: [1, 1] },
      { zoneId: ZONE.main, cards: Array.from({ length: 800 }, (_, i) => `main-card-${i + 1}`), entries: [15, 20], quantity: [2, 4] },
      { zoneId: ZONE.sideboard, cards: Array.from({ length: 800 }, (_, i) => `main-card-${i + 1}`), entries: [0, 8], quantity: [1, 3] },
    ],
  },
  {
    gameId: 'chrono-core',
    zones: [
      { zoneId: null, cards: ids('WNR', 2, 120, 3), entries: [15, 22], quantity: [1, 3] },
      { zoneId: ZONE.sideboard, cards: ids('SD', 3, 40, 3), entries: [0, 6], quantity: [1, 2] },
    ],
  },
];
