/**
 * Imports the real card data under `<repo>/../shared/data/raw` (see its SOURCES.md) into the
 * catalog form: `<out>/<slug>.jsonl`, one full card per line, every card checked against its schema.
 *
 *   npx tsx scripts/import-real.ts [--raw DIR] [--out DIR] [--game SLUG]...
 *
 * --raw   the raw data folder (default <repo root>/../shared/data/raw)
 * --out   output folder (default data/real under the repository root; gitignored)
 *
 * Sources per game:
 * - digimon: digimoncardio_cards.json (the full catalog) merged, where ids overlap, with the
 *   TakaOtaku-format files (illustrators, alternative arts, LINK / ACE data, full digivolve
 *   conditions); TakaOtaku-only cards are added.
 * - gundam: gcgapi_cards_cc0 (CC0); one card per card number, other printings become cardArts.
 * - grand-archive: ga_cards_merged.json; editions become cardArts.
 * - chrono-core: cards_from_sleeved_examples.json plus the two Sleeved exports (for the sections
 *   unnamed ids were seen in).
 *
 * A record that does not map to a valid card stops the import with the record and the reason.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CARD_MODELS,
  DIGIMON_CARD_TYPES,
  GRAND_ARCHIVE_CLASSES,
  GRAND_ARCHIVE_RARITIES,
  GUNDAM_CARD_TYPES,
  digimonTimingsOf,
  type ChronoCoreCard,
  type DigimonCard,
  type GrandArchiveCard,
  type GrandArchiveCardArt,
  type GundamCard,
} from '../packages/contract/src/cards/index.ts';
import { GAME_SLUGS, isGameSlug, type GameSlug } from '../packages/contract/src/games.ts';
import {
  CHRONO_CORE_SET_NAMES,
  REPO_ROOT,
  chronoCoreImageUrl,
  chronoCorePlaceholderName,
  digimonImageUrl,
  digimonSourceImageUrl,
  inferChronoCoreCard,
  writeCatalogFile,
} from './generate-catalog.ts';

export const DEFAULT_RAW_DIR = resolve(REPO_ROOT, '..', 'shared', 'data', 'raw');
export const DEFAULT_REAL_DIR = join(REPO_ROOT, 'data', 'real');

/** The raw data folder, or null when `../shared` is not checked out next to the repository. */
export function realDataDir(): string | null {
  return existsSync(join(DEFAULT_RAW_DIR, 'SOURCES.md')) ? DEFAULT_RAW_DIR : null;
}

// ---------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
}

function readArray(file: string, member?: string): Json[] {
  const value = readJson(file);
  const list = member === undefined ? value : (value as Json | null)?.[member];
  if (!Array.isArray(list)) throw new Error(`${file}: expected ${member ? `a "${member}" array` : 'an array'}`);
  return list as Json[];
}

/** Thrown for a record that cannot become a card; names the record so the data can be fixed. */
export class ImportError extends Error {
  constructor(game: GameSlug, record: unknown, reason: string) {
    super(`${game}: cannot import record ${JSON.stringify(record)?.slice(0, 2000)}\n  reason: ${reason}`);
    this.name = 'ImportError';
  }
}

/** Reads typed members of a source record, failing with the record when a member is off. */
class Reader {
  constructor(readonly game: GameSlug, readonly record: Json) {}

  fail(reason: string): never {
    throw new ImportError(this.game, this.record, reason);
  }

  str(key: string): string {
    const v = this.record[key];
    if (typeof v !== 'string') this.fail(`${key} is not a string`);
    return v;
  }

  optStr(key: string): string | null {
    const v = this.record[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string') this.fail(`${key} is not a string or null`);
    return v;
  }

  optInt(key: string): number | null {
    const v = this.record[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'number' || !Number.isInteger(v)) this.fail(`${key} is not an integer or null`);
    return v;
  }

  strings(key: string): string[] {
    const v = this.record[key];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) this.fail(`${key} is not an array of strings`);
    return v as string[];
  }

  records(key: string): Json[] {
    const v = this.record[key];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'object' && x !== null)) this.fail(`${key} is not an array of objects`);
    return v as Json[];
  }
}

/**
 * Source texts carry no-break spaces and trailing blanks from web scraping; rules text means plain
 * spaces, so they are normalised (line breaks are kept).
 */
function cleanText(text: string): string {
  return text
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''))
    .join('\n')
    .trim();
}

/** TakaOtaku writes "-" for an empty value. */
const takaText = (value: string | null): string | null => {
  if (value === null) return null;
  const text = cleanText(value);
  return text === '' || text === '-' ? null : text;
};

const FULLWIDTH_DIGITS = /[０-９]/g;
const toAsciiDigits = (s: string) => s.replace(FULLWIDTH_DIGITS, (d) => String(d.charCodeAt(0) - 0xff10));

/** The number after the dash of a card number: BT1-010 → 10. */
const numberAfterDash = (id: string) => Number(/-(\d+)$/.exec(id)?.[1] ?? '0');

// ---------------------------------------------------------------------------------------------
// Digimon
// ---------------------------------------------------------------------------------------------

const DIGIMON_SPECIAL_DIGIVOLVE = /^\[(?:Digivolve|App Fusion)\]/;
const DIGIMON_SPECIAL_CONDITIONS = /^\[(?:DNA Digivolve|DigiXros|Assembly|Burst Digivolve)\b/;
/**
 * TakaOtaku writes some digivolve conditions by form instead of level ("All Stnd." for any Standard
 * Appmon). The contract's condition has a level only, so a form stands for the level it sits at
 * (Standard / Rookie 3, Super / Champion 4, Ultimate 5, God / Mega 6); the printed rule stays in
 * the card's texts.
 */
const FORM_LEVELS: Readonly<Record<string, number>> = {
  'In-Training': 2, Rookie: 3, 'Stnd.': 3, Champion: 4, 'Sup.': 4, Ultimate: 5, 'Ult.': 5, Mega: 6, God: 6,
};

/**
 * Splits the alternative-digivolution text of a card into `specialDigivolve` ([Digivolve], [App
 * Fusion]) and `specialDigivolutionConditions` (DNA, DigiXros, Assembly, Burst). Reminder lines
 * ("Stack the 2 specified Digimon…") stay with the rule above them.
 */
function splitSpecialDigivolution(text: string | null): { specialDigivolve: string | null; specialDigivolutionConditions: string | null } {
  const special: string[] = [];
  const conditions: string[] = [];
  let current = special;
  for (const line of (text ?? '').split('\n')) {
    if (line.trim() === '') continue;
    if (DIGIMON_SPECIAL_CONDITIONS.test(line)) current = conditions;
    else if (DIGIMON_SPECIAL_DIGIVOLVE.test(line)) current = special;
    current.push(line);
  }
  return { specialDigivolve: special.length ? special.join('\n') : null, specialDigivolutionConditions: conditions.length ? conditions.join('\n') : null };
}

/** Lines opening with [Security] are the security effect; the rest is the main effect. */
function splitSecurity(text: string): { effect: string; securityEffect: string | null } {
  const main: string[] = [];
  const security: string[] = [];
  for (const line of text.split('\n')) (line.startsWith('[Security]') ? security : main).push(line);
  return { effect: main.join('\n').trim(), securityEffect: security.length ? security.join('\n') : null };
}

/**
 * digimoncard.io sometimes names a set after a reprint product (BT1-010 → "25th Special Memorial
 * Pack"); the set's own name is the one whose code matches the set id ("BT-01: …" for BT1).
 */
function digimonSetNames(records: readonly Json[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const r of records) {
    const set = String(r.set);
    const name = String(r.set_name ?? '');
    const code = /^([A-Z]+)-?0*(\d+)\s*:/.exec(name);
    if (!code || `${code[1]}${code[2]}` !== set) continue;
    const byName = counts.get(set) ?? new Map<string, number>();
    byName.set(name, (byName.get(name) ?? 0) + 1);
    counts.set(set, byName);
  }
  const names = new Map<string, string>([
    ['P', 'Promotion Cards'],
    ['LM', 'Limited Card Packs'],
  ]);
  for (const [set, byName] of counts) {
    const best = [...byName].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
    if (best) names.set(set, best[0]);
  }
  return names;
}

interface CardIoTexts {
  effect: string;
  inheritedEffect: string | null;
  securityEffect: string | null;
  aceEffect: string | null;
  linkCondition: string | null;
}

/**
 * digimoncard.io has two text boxes. `main_effect` is the card's effect, except that Digi-Eggs (and
 * a few Digimon) put their inherited effect there behind "Inherited Effect". `source_effect` is the
 * second box and says what it holds by a prefix: "Security Effect", "Ace Overflow", "Link
 * Requirements", "Use Requirement" (the Option half of a Dual card), "Card Effect(s)" (a copy of
 * the main text); unprefixed it is the inherited effect, or a Tamer's bare "[Security]" line.
 */
function cardIoTexts(r: Reader): CardIoTexts {
  const main = cleanText(r.optStr('main_effect') ?? '');
  const second = cleanText(r.optStr('source_effect') ?? '');
  let mainText = main;
  let inheritedEffect: string | null = null;
  if (main.startsWith('Inherited Effect')) {
    // source_effect then holds a lossy copy of the same inherited text.
    return { effect: '', inheritedEffect: main.replace(/^Inherited Effect\s*/, ''), securityEffect: null, aceEffect: null, linkCondition: null };
  }
  let extraSecurity: string | null = null;
  let aceEffect: string | null = null;
  let linkCondition: string | null = null;
  if (second.startsWith('Security Effect')) extraSecurity = second.replace(/^Security Effect\s*/, '');
  else if (second.startsWith('Ace ')) aceEffect = second.replace(/^Ace\s*/, '');
  else if (second.startsWith('Link Requirements')) linkCondition = second.replace(/^Link Requirements\s*/, '');
  else if (second.startsWith('Use Requirement')) mainText = [main, second].filter(Boolean).join('\n');
  else if (second.startsWith('Card Effect')) {
    // A copy of main_effect: nothing new.
  } else if (second.startsWith('[Security]')) extraSecurity = second;
  else if (second !== '') inheritedEffect = second;
  const split = splitSecurity(mainText);
  const security = [split.securityEffect, extraSecurity].filter((t, i, all): t is string => t !== null && all.indexOf(t) === i);
  return { effect: split.effect, inheritedEffect, securityEffect: security.length ? security.join('\n') : null, aceEffect, linkCondition };
}


/** The art fields of a card known only by its main art (alternative arts are merged in later). */
function digimonMainArtOnly(id: string) {
  return {
    illustrator: '',
    cardImageUrl: digimonImageUrl(id),
    imageSourceUrl: digimonSourceImageUrl(id),
    hasAltArt: false,
    cardArts: [{ id, type: 'Normal', url: digimonImageUrl(id) }],
    AAs: [],
  };
}

function digimonFromCardIo(r: Reader, setNames: Map<string, string>): DigimonCard {
  const id = r.str('card_id');
  const cardType = r.str('type') as DigimonCard['cardType'];
  if (!DIGIMON_CARD_TYPES.includes(cardType)) r.fail(`unknown card type ${cardType}`);
  const colors = [r.str('color'), r.optStr('color2')].filter((c): c is string => c !== null) as DigimonCard['color'];
  const level = r.optInt('level') ?? 0;

  const { effect, inheritedEffect, securityEffect, aceEffect, linkCondition } = cardIoTexts(r);
  const { specialDigivolve, specialDigivolutionConditions } = splitSpecialDigivolution(cleanText(r.optStr('alt_effect') ?? ''));

  const evolutionCost = r.optInt('evolution_cost');
  const evolutionColor = r.optStr('evolution_color');
  // digimoncard.io keeps one condition; a null colour means "this card's colours", a null level
  // means the level below; a colour of the card stands for all of its colours.
  const digivolveCondition: DigimonCard['digivolveCondition'] =
    evolutionCost === null || level < 3
      ? []
      : [{
          color: evolutionColor === null || colors.includes(evolutionColor as DigimonCard['color'][number]) ? [...colors] : [evolutionColor],
          cost: evolutionCost,
          level: r.optInt('evolution_level') ?? level - 1,
        }];

  const setId = r.str('set');
  const setName = setNames.get(setId) ?? r.fail(`no set name for set ${setId}`);
  return {
    id,
    cardNumber: id,
    objectID: id,
    name: { english: cleanText(r.str('name')) },
    color: colors,
    cardType,
    dp: r.optInt('dp'),
    playCost: r.optInt('play_cost') ?? 0,
    level,
    rarity: r.str('rarity'),
    // Quirk: one attribute reads "Free}}".
    attribute: (r.optStr('attribute') ?? '').replace(/[{}]/g, ''),
    form: r.optStr('form') ?? r.optStr('stage') ?? '',
    type: r.strings('digi_types').join('/'),
    effect,
    inheritedEffect,
    securityEffect,
    aceEffect,
    linkDp: null,
    hasLink: linkCondition !== null,
    linkCondition,
    linkEffect: null,
    specialDigivolve,
    specialDigivolutionConditions,
    digivolveCondition,
    setId,
    setName,
    setOrder: numberAfterDash(id),
    productOrigin: r.optStr('set_name') || setName,
    timings: digimonTimingsOf([effect, inheritedEffect, securityEffect]),
    ...digimonMainArtOnly(id),
  };
}

/** TakaOtaku digivolve conditions, one per colour, merged per (cost, level). */
function takaDigivolveConditions(r: Reader): DigimonCard['digivolveCondition'] {
  const merged: DigimonCard['digivolveCondition'] = [];
  for (const c of r.records('digivolveCondition')) {
    const cost = Number(c.cost);
    const levelText = String(c.level);
    const level = /^\d+$/.test(levelText) ? Number(levelText) : FORM_LEVELS[levelText];
    if (!Number.isInteger(cost) || level === undefined) r.fail(`digivolveCondition ${JSON.stringify(c)} has no numeric cost or level`);
    const colors = String(c.color).split('/').map((x) => x.trim()).filter(Boolean);
    const same = merged.find((m) => m.cost === cost && m.level === level);
    if (same) same.color.push(...colors.filter((x) => !same.color.includes(x)));
    else merged.push({ color: colors, cost, level });
  }
  return merged;
}

/** "Foil - Coloured Border - " → "Foil - Coloured Border". */
const cleanArtType = (type: string) => cleanText(type).replace(/\s*-\s*$/, '') || 'Alternative Art';

/** Alternative arts from a TakaOtaku record; only English arts (AAs), not Japanese-only (JAAs). */
function takaAltArts(r: Reader, name: string): { AAs: DigimonCard['AAs']; cardArts: DigimonCard['cardArts'] } {
  const AAs: DigimonCard['AAs'] = r.records('AAs').map((aa) => {
    const id = String(aa.id);
    const type = cleanArtType(String(aa.type ?? ''));
    return {
      id,
      type,
      illustrator: takaIllustrator(aa.illustrator),
      cardImageUrl: digimonImageUrl(id),
      pricingLabel: `${name} (${type})`,
      // No marketplace ids in any source: 0 means "no listing known".
      marketplaceProductId: 0,
      productOrigin: cleanText(String(aa.note ?? '')),
    };
  });
  // Quirk: the same art can appear twice (EX1-066_P3, two products); an art is listed once.
  const arts = AAs.filter((aa, i) => AAs.findIndex((o) => o.id === aa.id) === i).map((aa) => ({
    id: aa.id,
    type: aa.type,
    url: aa.cardImageUrl,
    illustrator: aa.illustrator,
    marketplaceProductId: aa.marketplaceProductId,
    pricingLabel: aa.pricingLabel,
  }));
  return { AAs, cardArts: arts };
}

const takaIllustrator = (value: unknown) => {
  const text = typeof value === 'string' ? cleanText(value) : '';
  return text === '-' || text === 'No Illustrator' ? '' : text;
};

const parseLinkDp = (text: string | null) => (text === null ? null : Number(/(\d+)/.exec(text)?.[1] ?? NaN));

/** What TakaOtaku adds to a digimoncard.io card: art, illustrator, LINK DP / effect and all digivolve conditions. */
function mergeTaka(card: DigimonCard, r: Reader): DigimonCard {
  const { AAs, cardArts } = takaAltArts(r, card.name.english);
  const linkCondition = takaText(r.optStr('linkRequirement'));
  const linkEffect = takaText(r.optStr('linkEffect'));
  const linkDp = parseLinkDp(takaText(r.optStr('linkDP')));
  if (linkDp !== null && !Number.isInteger(linkDp)) r.fail('linkDP has no number');
  const conditions = takaDigivolveConditions(r);
  return {
    ...card,
    illustrator: takaIllustrator(r.record.illustrator),
    // digimoncard.io's texts (with reminder text) win where both have one, as for every other card.
    aceEffect: card.aceEffect ?? takaText(r.optStr('aceEffect')),
    linkDp,
    linkCondition: card.linkCondition ?? linkCondition,
    linkEffect,
    hasLink: (card.linkCondition ?? linkCondition) !== null || linkEffect !== null || linkDp !== null,
    digivolveCondition: conditions.length ? conditions : card.digivolveCondition,
    hasAltArt: AAs.length > 0,
    cardArts: [card.cardArts[0] ?? { id: card.id, type: 'Normal', url: card.cardImageUrl }, ...cardArts],
    AAs,
  };
}

/** A card known only from TakaOtaku (P-226): every field from its record. */
function digimonFromTaka(r: Reader, setNames: Map<string, string>): DigimonCard {
  const id = r.str('id');
  const names = r.record.name as Json | undefined;
  const english = typeof names?.english === 'string' ? cleanText(names.english) : r.fail('name.english missing');
  const takaType = r.str('cardType');
  const cardType = (takaType === 'Digimon/Option' ? 'Dual' : takaType) as DigimonCard['cardType'];
  if (!DIGIMON_CARD_TYPES.includes(cardType)) r.fail(`unknown card type ${takaType}`);
  const num = (key: string) => {
    const text = takaText(r.optStr(key));
    return text === null ? null : Number(toAsciiDigits(text).replace(/^Lv\./, ''));
  };
  const effect = [takaText(r.optStr('effect')), takaText(r.optStr('optionCardEffect')), takaText(r.optStr('rule'))].filter(Boolean).join('\n');
  const inheritedEffect = takaText(r.optStr('digivolveEffect'));
  const securityEffect = takaText(r.optStr('securityEffect'));
  const alt = ['specialDigivolve', 'dnaDigivolve', 'digiXros', 'assembly', 'burstDigivolve'].map((k) => takaText(r.optStr(k))).filter(Boolean).join('\n');
  const setId = id.split('-')[0] ?? r.fail('no set in id');
  const base: DigimonCard = {
    id,
    cardNumber: id,
    objectID: id,
    name: { english },
    color: r.str('color').split('/').map((c) => c.trim()) as DigimonCard['color'],
    cardType,
    dp: num('dp'),
    playCost: num('playCost') ?? 0,
    level: num('cardLv') ?? 0,
    rarity: takaText(r.optStr('rarity')) ?? 'P',
    attribute: takaText(r.optStr('attribute')) ?? '',
    form: takaText(r.optStr('form')) ?? '',
    type: takaText(r.optStr('type')) ?? '',
    effect,
    inheritedEffect,
    securityEffect,
    aceEffect: null,
    linkDp: null,
    hasLink: false,
    linkCondition: null,
    linkEffect: null,
    ...splitSpecialDigivolution(alt || null),
    digivolveCondition: [],
    setId,
    setName: setNames.get(setId) ?? setId,
    setOrder: numberAfterDash(id),
    productOrigin: takaText(r.optStr('notes'))?.replace(/^▹/, '') ?? '',
    timings: digimonTimingsOf([effect, inheritedEffect, securityEffect]),
    ...digimonMainArtOnly(id),
  };
  return mergeTaka(base, r);
}

/**
 * Source records deliberately left out, with the reason. Anything else that does not map fails the
 * import: this list is the only way past a bad record.
 */
export const SKIPPED_RECORDS: Readonly<Record<GameSlug, Readonly<Record<string, string>>>> = {
  digimon: {
    'P-226': 'TakaOtaku placeholder for an unreleased promo: name "[[:Category:|]]", no card type, colour or text',
  },
  gundam: {},
  'grand-archive': {},
  'chrono-core': {},
};

function importDigimon(raw: string): DigimonCard[] {
  const dir = join(raw, 'digimon');
  const cardIo = readArray(join(dir, 'digimoncardio_cards.json'));
  const taka = [
    ...readArray(join(dir, 'takaotaku_format_fixture_17.json')),
    ...readArray(join(dir, 'takaotaku_format_bt26_ex12_promos.json')),
  ];
  const takaById = new Map(taka.map((t) => [String(t.id), t]));
  const setNames = digimonSetNames(cardIo);
  const cards = cardIo.map((record) => {
    const card = digimonFromCardIo(new Reader('digimon', record), setNames);
    const extra = takaById.get(card.id);
    return extra ? mergeTaka(card, new Reader('digimon', extra)) : card;
  });
  const known = new Set(cards.map((c) => c.id));
  for (const record of taka) {
    const id = String(record.id);
    if (!known.has(id) && !(id in SKIPPED_RECORDS.digimon)) cards.push(digimonFromTaka(new Reader('digimon', record), setNames));
  }
  return cards;
}

// ---------------------------------------------------------------------------------------------
// Gundam
// ---------------------------------------------------------------------------------------------

const GUNDAM_TYPE_NAMES: Readonly<Record<string, GundamCard['cardType']>> = Object.fromEntries(
  GUNDAM_CARD_TYPES.map((t) => [t.toUpperCase(), t]),
);

/** ap / hp: the number, else the printed text ("+1" on pilots, quirk: fullwidth "３"), else null. */
function gundamStat(r: Reader, key: 'ap' | 'hp'): number | null {
  const value = r.optInt(key);
  if (value !== null) return value;
  const text = r.optStr(`${key}_raw`);
  if (text === null) return null;
  const n = Number(toAsciiDigits(text).replace(/^\+/, ''));
  return Number.isInteger(n) ? n : r.fail(`${key}_raw ${JSON.stringify(text)} is not a number`);
}

const dashToNull = (text: string | null) => (text === null || text.trim() === '-' || text.trim() === '' ? null : text.trim());

function gundamCard(printings: readonly Json[]): GundamCard {
  const first = printings[0];
  if (!first) throw new Error('gundam: empty printing group');
  const cardNumber = String(first.card_number);
  // The standard printing carries the card number as its id; a few cards exist only as parallels.
  const base = printings.find((p) => p.product_id === cardNumber) ?? first;
  const r = new Reader('gundam', base);
  const cardType = GUNDAM_TYPE_NAMES[r.str('card_type')] ?? r.fail(`unknown card_type ${r.str('card_type')}`);
  const ordered = [base, ...printings.filter((p) => p !== base)];
  const cardArts: GundamCard['cardArts'] = ordered.map((p) => {
    const pr = new Reader('gundam', p);
    const id = pr.str('product_id');
    return {
      id,
      type: pr.optStr('sp') ? 'SP' : id === cardNumber ? 'Standard' : 'Parallel',
      url: pr.str('image_url'),
      rarity: pr.str('rarity'),
      productOrigin: pr.optStr('where_to_get') ?? '',
    };
  });
  const zone = dashToNull(r.optStr('zone'));
  const statless = cardType === 'Resource' || cardType === 'EX Resource';
  return {
    id: cardNumber,
    objectID: cardNumber,
    cardNumber,
    name: cleanText(r.str('name')),
    cardType,
    color: r.optStr('color') === null ? [] : [r.str('color')],
    level: r.optInt('level'),
    cost: r.optInt('cost'),
    // Quirk: R-001's only printings start with one carrying AP 3 / HP 1; Resources have no stats.
    ap: statless ? null : gundamStat(r, 'ap'),
    hp: statless ? null : gundamStat(r, 'hp'),
    rarity: r.str('rarity'),
    traits: r.strings('traits'),
    linkCondition: dashToNull(r.optStr('link')),
    keywords: r.records('keyword_effects').map((k) => ({ keyword: String(k.keyword), value: typeof k.value === 'number' ? k.value : null })),
    effect: dashToNull(cleanText(r.optStr('effect') ?? '')) ?? '',
    timings: r.strings('timing_markers'),
    setId: r.str('set_code'),
    setName: r.str('set_name'),
    cardImageUrl: r.str('image_url'),
    hasAltArt: cardArts.length > 1,
    terrain: zone === null ? [] : zone.split(/\s+/),
    linkRefs: r.strings('link_refs'),
    sourceTitle: dashToNull(r.optStr('source_title')),
    block: dashToNull(r.optStr('block_icon')),
    setOrder: numberAfterDash(cardNumber),
    productOrigin: r.optStr('where_to_get') ?? '',
    detailUrl: r.str('detail_url'),
    cardArts,
  };
}

function importGundam(raw: string): GundamCard[] {
  const rows = readArray(join(raw, 'gundam', 'gcgapi_cards_cc0_2026-07-06.json'));
  const groups = new Map<string, Json[]>();
  for (const row of rows) {
    const key = String(row.card_number);
    const group = groups.get(key) ?? [];
    group.push(row);
    groups.set(key, group);
  }
  return [...groups.values()].map(gundamCard);
}

// ---------------------------------------------------------------------------------------------
// Grand Archive
// ---------------------------------------------------------------------------------------------

/** Set codes as the edition slugs spell them (absolving-flames-amb → AMB), by set name. */
const GA_SET_IDS: Readonly<Record<string, string>> = {
  'Dawn of Ashes First Edition': 'DOA1E', 'Dawn of Ashes Alter Edition': 'DOA-ALTER', 'Dawn of Ashes Prelude': 'DOAP',
  'Dawn of Ashes Starter Decks': 'DOASD', 'Fractured Crown': 'FTC', 'Fractured Crown: Armaments': 'FTCA',
  'Alchemical Revolution': 'ALC', 'Alchemical Revolution First Edition': 'ALC1E', 'Alchemical Revolution Starter Decks': 'ALCSD',
  'Mercurial Heart': 'MRC', 'Mercurial Heart First Edition': 'MRC1E', 'Mortal Ambition': 'AMB', 'Mortal Ambition First Edition': 'AMB1E',
  'Mortal Ambition Starter Decks': 'AMBSD', 'Re:Collection Shadowdancer': 'REC-SHD', 'Re:Collection Slime Sovereign': 'REC-SLM',
  'Supporter Pack 1': 'SP1', 'Supporter Pack 2': 'SP2', 'Promotional 2022': 'P22', 'Promotional 2023': 'P23', 'Promotional 2024': 'P24',
  'LGS Demo 2022': 'DEMO22', 'LGS Demo 2023': 'DEMO23', 'SquareLive Collaboration': 'SLC', 'Event Packs': 'EVP',
  'Kickstarter Promotional': 'KSP', "Proxia's Vault": 'PRXY', GenSeCha: 'GSC',
};
/** GA Index rarity codes 1–9. */
const GA_RARITY_BY_CODE: readonly GrandArchiveCardArt['rarity'][] = GRAND_ARCHIVE_RARITIES;
const GA_ART_ORDER: readonly GrandArchiveCardArt['type'][] = ['Standard', 'First Edition', 'Alter Edition', 'Collector'];

function gaEdition(card: Reader, e: Json): GrandArchiveCardArt {
  const r = new Reader('grand-archive', e);
  const slug = r.str('edition_slug');
  const setName = r.str('set');
  const rarityCode = r.optInt('rarity');
  const rarity = rarityCode === null ? undefined : GA_RARITY_BY_CODE[rarityCode - 1];
  if (!rarity) card.fail(`edition ${slug} has unknown rarity ${String(rarityCode)}`);
  const suffix = slug.slice(String(card.record.slug).length + 1);
  const type: GrandArchiveCardArt['type'] =
    rarity === 'CSR' || rarity === 'CUR' || rarity === 'CPR' ? 'Collector' : suffix.includes('alter') ? 'Alter Edition' : /First Edition$/.test(setName) ? 'First Edition' : 'Standard';
  return {
    id: slug,
    type,
    url: r.str('image_url'),
    setId: GA_SET_IDS[setName] ?? (suffix.split('-')[0] ?? suffix).toUpperCase(),
    setName,
    collectorNumber: r.str('collector_number'),
    rarity,
    illustrator: r.optStr('illustrator') === null ? null : cleanText(r.str('illustrator')) || null,
  };
}

function gaCard(record: Json, arenaImages: Map<string, string>): GrandArchiveCard {
  const r = new Reader('grand-archive', record);
  const slug = r.str('slug');
  const editions = r.records('editions').map((e) => gaEdition(r, e));
  // The main edition first (standard before first / alter / collector prints), source order kept.
  const arts = editions.map((e, i) => ({ e, i })).sort((a, b) => GA_ART_ORDER.indexOf(a.e.type) - GA_ART_ORDER.indexOf(b.e.type) || a.i - b.i).map(({ e }) => e);
  const main = arts[0];
  const uuid = r.str('uuid');
  // Cards without a known edition: the TCG Arena image, else the GA Index path for the card slug
  // (same bucket as the edition images; best effort, the index names images by edition).
  const cardImageUrl = main?.url ?? arenaImages.get(uuid) ?? `https://ga-index-public.s3.us-west-2.amazonaws.com/cards/${slug}.jpg`;
  const home = r.optStr('home_deck');
  const deckZone = home === 'main' || home === 'material' ? home : home === 'none' ? null : r.fail(`unknown home_deck ${String(home)}`);
  const kind = r.optStr('cost_kind');
  const costKind = kind === null || kind === 'reserve' || kind === 'memory' ? kind : r.fail(`unknown cost_kind ${kind}`);
  const types = r.strings('types');
  const subtypes = r.strings('subtypes');
  return {
    id: slug,
    objectID: slug,
    name: cleanText(r.str('name')),
    types,
    subtypes,
    typeLine: r.optStr('type_line') ?? types.join(' / '),
    classes: GRAND_ARCHIVE_CLASSES.filter((c) => subtypes.includes(c)),
    element: null,
    deckZone,
    cost: r.optInt('cost'),
    costKind,
    level: null,
    effect: cleanText(r.optStr('effect') ?? ''),
    setId: main?.setId ?? null,
    setName: main?.setName ?? null,
    rarity: main?.rarity ?? null,
    cardImageUrl,
    hasAltArt: arts.length > 1,
    uuid,
    power: null,
    life: null,
    durability: null,
    speed: null,
    illustrator: main?.illustrator ?? null,
    cardArts: arts,
  };
}

function importGrandArchive(raw: string): GrandArchiveCard[] {
  const dir = join(raw, 'grand-archive');
  const arena = readJson(join(dir, 'tcg_arena_cardlist.json')) as Record<string, { face?: { front?: { image?: unknown } } }>;
  const arenaImages = new Map<string, string>();
  for (const [uuid, entry] of Object.entries(arena)) {
    const image = entry.face?.front?.image;
    if (typeof image === 'string') arenaImages.set(uuid, image);
  }
  return readArray(join(dir, 'ga_cards_merged.json')).map((record) => gaCard(record, arenaImages));
}

// ---------------------------------------------------------------------------------------------
// Chrono Core
// ---------------------------------------------------------------------------------------------

/** Ids seen in the starting loadout of either Sleeved export. */
function chronoLoadoutIds(dir: string): Set<string> {
  const loadout = new Set<string>();
  const json = readJson(join(dir, 'decks', 'sleeved_json_export.json')) as { zones?: { loadout?: unknown } };
  if (!Array.isArray(json.zones?.loadout)) throw new Error('chrono-core: sleeved_json_export.json has no zones.loadout array');
  for (const id of json.zones.loadout) loadout.add(String(id));
  let section = '';
  for (const line of readFileSync(join(dir, 'decks', 'sleeved_text_export.txt'), 'utf8').split('\n')) {
    const header = /^\/\/\s*(.+?)\s*$/.exec(line);
    if (header) section = header[1] ?? '';
    const id = /\(([A-Z]+\d+-\d+)\)\s*$/.exec(line)?.[1];
    if (id && section === 'Starting Loadout') loadout.add(id);
  }
  return loadout;
}

function importChronoCore(raw: string): ChronoCoreCard[] {
  const dir = join(raw, 'chrono-core');
  const file = readJson(join(dir, 'cards_from_sleeved_examples.json')) as Json;
  const named = readArray(join(dir, 'cards_from_sleeved_examples.json'), 'cards');
  const unnamed = file.unnamed_ids;
  if (!Array.isArray(unnamed)) throw new Error('chrono-core: cards_from_sleeved_examples.json has no unnamed_ids array');
  const loadout = chronoLoadoutIds(dir);
  const sightings: Array<{ record: Json; id: string; name: string | null; loadout: boolean }> = [
    ...named.map((record) => {
      const r = new Reader('chrono-core', record);
      const sections = r.strings('seen_in_sections');
      return { record, id: r.str('id'), name: cleanText(r.str('name')), loadout: sections.includes('Starting Loadout') || loadout.has(r.str('id')) };
    }),
    ...unnamed.map((id) => ({ record: { id }, id: String(id), name: null, loadout: loadout.has(String(id)) })),
  ];
  return sightings
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ record, id, name, loadout: inLoadout }) => {
      const setId = id.split('-')[0] ?? '';
      const setName = CHRONO_CORE_SET_NAMES[setId] ?? new Reader('chrono-core', record).fail(`unknown set ${setId}`);
      return {
        id,
        objectID: id,
        cardNumber: id,
        name: name ?? chronoCorePlaceholderName(id),
        ...inferChronoCoreCard(name, inLoadout),
        traits: [],
        cost: null,
        power: null,
        health: null,
        effect: '',
        rarity: null,
        setId,
        setName,
        setOrder: numberAfterDash(id),
        cardImageUrl: chronoCoreImageUrl(setId, id),
        hasAltArt: false,
        cardArts: [{ id, type: 'Standard', url: chronoCoreImageUrl(setId, id) }],
      };
    });
}

// ---------------------------------------------------------------------------------------------
// Import
// ---------------------------------------------------------------------------------------------

const IMPORTERS: Record<GameSlug, (raw: string) => Array<{ id: string }>> = {
  digimon: importDigimon,
  gundam: importGundam,
  'grand-archive': importGrandArchive,
  'chrono-core': importChronoCore,
};

/** Maps one game's raw data to cards, each checked against the schema (throws ImportError). */
export function importGame(game: GameSlug, raw: string): Array<{ id: string }> {
  const cards = IMPORTERS[game](raw);
  const model = CARD_MODELS[game];
  const seen = new Set<string>();
  for (const card of cards) {
    const parsed = model.card.safeParse(card);
    if (!parsed.success) {
      throw new ImportError(game, card, parsed.error.issues.map((i) => `${i.path.join('.') || '(card)'}: ${i.message}`).join('; '));
    }
    if (seen.has(card.id)) throw new ImportError(game, card, `duplicate card id ${card.id}`);
    seen.add(card.id);
  }
  return cards;
}

export interface ImportSummary {
  game: GameSlug;
  cards: number;
  withAltArt: number;
  file: string;
  bytes: number;
}

export interface ImportOptions {
  raw?: string;
  out?: string;
  games?: readonly GameSlug[];
}

/** Imports every game (or `games`) from `raw` into `<out>/<slug>.jsonl`. */
export function importRealCatalog({ raw = DEFAULT_RAW_DIR, out = DEFAULT_REAL_DIR, games = GAME_SLUGS }: ImportOptions = {}): ImportSummary[] {
  if (!existsSync(raw)) throw new Error(`raw data folder not found: ${raw}`);
  return games.map((game) => {
    const result = writeCatalogFile(join(out, `${game}.jsonl`), game, importGame(game, raw));
    return { game, cards: result.cards, withAltArt: result.withAltArt, file: result.file, bytes: result.bytes };
  });
}

function main(argv: readonly string[]): void {
  let raw = DEFAULT_RAW_DIR;
  let out = DEFAULT_REAL_DIR;
  const games: GameSlug[] = [];
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value\nusage: npx tsx scripts/import-real.ts [--raw DIR] [--out DIR] [--game SLUG]...`);
    if (flag === '--raw') raw = resolve(value);
    else if (flag === '--out') out = resolve(value);
    else if (flag === '--game') {
      if (!isGameSlug(value)) throw new Error(`--game must be one of ${GAME_SLUGS.join(', ')}, got ${value}`);
      games.push(value);
    } else throw new Error(`unknown option ${flag}`);
  }
  for (const s of importRealCatalog({ raw, out, games: games.length ? games : GAME_SLUGS })) {
    const skipped = Object.entries(SKIPPED_RECORDS[s.game]).map(([id, reason]) => `; skipped ${id}: ${reason}`).join('');
    console.log(`${s.game}: ${s.cards} cards (${s.withAltArt} with alt arts) -> ${relative(process.cwd(), s.file) || s.file} (${(s.bytes / 1e6).toFixed(1)} MB)${skipped}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(`import-real: ${(error as Error).message}`);
    process.exit(1);
  }
}
