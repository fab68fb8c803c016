import { CARD_MODELS, type GameSlug } from '@snapdeck/contract';

/** What deck exports and zone resolution need to know about one catalog card. */
export interface CardInfo {
  name: string;
  imageUrl: string | null;
  /** The catalog's `cardType`, when the game's cards have one (chrono-core zone resolution). */
  cardType: string | null;
  /** The full catalog card, as GET /v1/games/{slug}/cards/{cardId} serves it (ga-tts export). */
  card: Record<string, unknown>;
}

/** A card of the deck's game by id, or null when the catalog does not have it. */
export type CardLookup = (cardId: string) => Promise<CardInfo | null>;

/**
 * The catalog of a game, as CardLookup: where decks' answers look cards up (zones, names). The
 * gateway's reads the snapshot version current at the time of each read.
 */
export type CatalogFor = (game: GameSlug) => Promise<CardLookup>;

/**
 * CardLookups over `catalog` for one answer: each game's asked of `catalog` once, and only when a
 * card needs it (most decks' zones are stored and recognised).
 */
export function lookupsOf(catalog: CatalogFor): (game: GameSlug) => CardLookup {
  const made = new Map<GameSlug, Promise<CardLookup>>();
  return (game) => async (cardId) => {
    let lookup = made.get(game);
    if (lookup === undefined) made.set(game, (lookup = catalog(game)));
    return (await lookup)(cardId);
  };
}

/** Anything that yields catalog cards by id: a snapshot version (`SnapshotVersion`) or a test double. */
export interface CardRecordSource {
  cardRecord(id: string): Promise<Record<string, unknown> | null>;
}

/**
 * A CardLookup over a game's catalog, naming and picturing cards with the game's card model. The
 * catalog was validated when its snapshot was built, so records are not parsed again here; a
 * record the model cannot read still yields its id as the name rather than failing the export.
 */
export function catalogLookup(game: GameSlug, source: CardRecordSource): CardLookup {
  const model = CARD_MODELS[game];
  return async (cardId) => {
    const card = await source.cardRecord(cardId);
    if (!card) return null;
    const typed = card as Parameters<typeof model.nameOf>[0];
    return {
      name: attempt(() => model.nameOf(typed)) ?? cardId,
      imageUrl: attempt(() => model.imageUrlOf(typed)) ?? null,
      cardType: typeof card.cardType === 'string' ? card.cardType : null,
      card,
    };
  };
}

function attempt(read: () => unknown): string | null {
  try {
    const value = read();
    return typeof value === 'string' && value !== '' ? value : null;
  } catch {
    return null;
  }
}

/** Looks every distinct id up once, concurrently. */
export async function lookupCards(cardIds: Iterable<string>, lookup: CardLookup): Promise<Map<string, CardInfo | null>> {
  const ids = [...new Set(cardIds)];
  const infos = await Promise.all(ids.map((id) => lookup(id)));
  return new Map(ids.map((id, i) => [id, infos[i] ?? null]));
}

/** Card names for the text exports; a card missing from the catalog is named by its id. */
export function namesOf(infos: ReadonlyMap<string, CardInfo | null>): Map<string, string> {
  const names = new Map<string, string>();
  for (const [id, info] of infos) names.set(id, info?.name ?? id);
  return names;
}
