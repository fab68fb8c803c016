/** Gundam from gcgapi_cards_cc0: one card per card number, other printings become cardArts. */
import { join } from 'node:path';
import { GUNDAM_CARD_TYPES, type GundamCard } from '@snapdeck/contract';
import { type Json, readArray, Reader, cleanText, toAsciiDigits, numberAfterDash } from './common.ts';

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

export function importGundam(raw: string): GundamCard[] {
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

