import { DECK_DETAILS_MAX_IDS, type DeckDetail, type DeckDetailsResult, type GameSlug } from '@snapdeck/contract';
import type { CardLookup } from './card-lookup.ts';
import type { ResolvedDeckCache } from './resolved-cache.ts';
import { normalizeDeckId, type DeckStore } from './store.ts';
import { toDetail } from './views.ts';

/**
 * data of POST /v1/decks/details (interface.md §4.5, decisions.md): the public decks among `ids`
 * with zones resolved, and every other requested id in `unresolved`, in request order, each once
 * (malformed, private and missing alike). A deck asked for twice, in any letter case, is answered
 * once. Two queries for all the decks; `lookupFor` is called at most once per game, and only when
 * a deck needs the catalog (chrono-core entries without a recognised zone).
 */
export async function deckDetails(
  store: DeckStore,
  cache: ResolvedDeckCache,
  ids: readonly string[],
  lookupFor: (game: GameSlug) => Promise<CardLookup>,
): Promise<DeckDetailsResult> {
  if (ids.length > DECK_DETAILS_MAX_IDS) throw new RangeError(`at most ${DECK_DETAILS_MAX_IDS} ids per request`);
  const found = new Map(store.getPublicDecks(ids).map((deck) => [deck.id, deck]));
  const lookups = new Map<GameSlug, Promise<CardLookup>>();
  const lazyLookup = (game: GameSlug): CardLookup => async (cardId) => {
    let lookup = lookups.get(game);
    if (!lookup) lookups.set(game, (lookup = lookupFor(game)));
    return (await lookup)(cardId);
  };

  const decks: Promise<DeckDetail>[] = [];
  const answered = new Set<string>();
  const unresolved: string[] = [];
  for (const requested of ids) {
    const id = normalizeDeckId(requested);
    const deck = id === null ? undefined : found.get(id);
    if (!deck) {
      if (!unresolved.includes(requested)) unresolved.push(requested);
      continue;
    }
    if (answered.has(deck.id)) continue;
    answered.add(deck.id);
    decks.push(cache.resolve(deck, lazyLookup(deck.gameId)).then((cards) => toDetail(deck, cards)));
  }
  return { decks: await Promise.all(decks), unresolved };
}
