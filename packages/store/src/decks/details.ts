import { DECK_DETAILS_MAX_IDS, type CardEntry, type DeckDetailsResult } from '@snapdeck/contract';
import type { CatalogFor } from './card-lookup.ts';
import { normalizeDeckId } from './rows.ts';
import type { StoredDeck } from './types.ts';
import { toDetail } from './views.ts';

/** What POST /v1/decks/details reads decks through (DeckStore). */
export interface DetailsSource {
  getPublicDecks(ids: readonly string[]): StoredDeck[];
  servedCards(deck: StoredDeck, catalog: CatalogFor): Promise<CardEntry[]>;
}

/**
 * data of POST /v1/decks/details (interface.md §4.5, decisions.md): the public decks among `ids`
 * with zones resolved, and every other requested id in `unresolved`, in request order, each once
 * (malformed, private and missing alike). A deck asked for twice, in any letter case, is answered
 * once. Two queries for all the decks not read before (DeckStore keeps them); `catalog` is asked
 * at most once per game, and only when a deck needs it. The route answers with
 * DeckStore.detailsJson, byte for byte `{"data":` this `}` (kept-decks.test.ts compares them).
 */
export async function deckDetails(store: DetailsSource, ids: readonly string[], catalog: CatalogFor): Promise<DeckDetailsResult> {
  const { decks, unresolved } = requestedDecks(store, ids);
  const once = onceEach(catalog);
  return { decks: await Promise.all(decks.map(async (deck) => toDetail(deck, await store.servedCards(deck, once)))), unresolved };
}

/** `catalog`, each game asked of it once. */
function onceEach(catalog: CatalogFor): CatalogFor {
  const made = new Map<string, ReturnType<CatalogFor>>();
  return (game) => {
    let lookup = made.get(game);
    if (lookup === undefined) made.set(game, (lookup = catalog(game)));
    return lookup;
  };
}

/** The public decks asked for (each once, in request order) and the ids left unresolved. */
export function requestedDecks(store: Pick<DetailsSource, 'getPublicDecks'>, ids: readonly string[]): { decks: StoredDeck[]; unresolved: string[] } {
  if (ids.length > DECK_DETAILS_MAX_IDS) throw new RangeError(`at most ${DECK_DETAILS_MAX_IDS} ids per request`);
  const found = new Map(store.getPublicDecks(ids).map((deck) => [deck.id, deck]));
  const decks: StoredDeck[] = [];
  const answered = new Set<string>();
  const unresolved: string[] = [];
  for (const asked of ids) {
    const id = normalizeDeckId(asked);
    const deck = id === null ? undefined : found.get(id);
    if (!deck) {
      if (!unresolved.includes(asked)) unresolved.push(asked);
      continue;
    }
    if (answered.has(deck.id)) continue;
    answered.add(deck.id);
    decks.push(deck);
  }
  return { decks, unresolved };
}

const BODY_OPEN = Buffer.from('{"data":{"decks":[');
const COMMA = Buffer.from(',');

/** The whole body of POST /v1/decks/details from the decks' parts (their JSON), in one copy. */
export function detailsBody(parts: readonly Buffer[], unresolved: readonly string[]): Buffer {
  const all: Buffer[] = [BODY_OPEN];
  for (const [i, part] of parts.entries()) {
    if (i > 0) all.push(COMMA);
    all.push(part);
  }
  all.push(Buffer.from(`],"unresolved":${JSON.stringify(unresolved)}}}`));
  return Buffer.concat(all);
}
