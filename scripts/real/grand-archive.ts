/** Grand Archive from ga_cards_merged.json: editions become cardArts. */
import { join } from 'node:path';
import { GRAND_ARCHIVE_CLASSES, GRAND_ARCHIVE_RARITIES, ZONE, type GrandArchiveCard, type GrandArchiveCardArt } from '@snapdeck/contract';
import { type Json, readJson, readArray, Reader, cleanText } from './common.ts';

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
  // GA Index `home_deck` is the card's deck zone; `none` (tokens) is built into no deck.
  const deckZone = home === ZONE.main || home === ZONE.material ? home : home === 'none' ? null : r.fail(`unknown home_deck ${String(home)}`);
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

export function importGrandArchive(raw: string): GrandArchiveCard[] {
  const dir = join(raw, 'grand-archive');
  const arena = readJson(join(dir, 'tcg_arena_cardlist.json')) as Record<string, { face?: { front?: { image?: unknown } } }>;
  const arenaImages = new Map<string, string>();
  for (const [uuid, entry] of Object.entries(arena)) {
    const image = entry.face?.front?.image;
    if (typeof image === 'string') arenaImages.set(uuid, image);
  }
  return readArray(join(dir, 'ga_cards_merged.json')).map((record) => gaCard(record, arenaImages));
}

