/** Digimon from digimoncardio_cards.json merged with the TakaOtaku-format files (see scripts/import-real.ts). */
import { join } from 'node:path';
import { DIGIMON_CARD_TYPES, digimonTimingsOf, type DigimonCard, type GameSlug } from '@snapdeck/contract';
import { digimonImageUrl, digimonSourceImageUrl } from '../generate-catalog.ts';
import { type Json, readArray, Reader, cleanText, takaText, toAsciiDigits, numberAfterDash } from './common.ts';

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

export function importDigimon(raw: string): DigimonCard[] {
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

