import { DECK_DETAILS_MAX_IDS, type DeckDetail, type DeckDetailsResult, type GameSlug } from '@snapdeck/contract';
import type { MaybePromise } from '@snapdeck/snapshot';
import type { CardLookup } from './card-lookup.ts';
import type { ResolvedDeckCache } from './resolved-cache.ts';
import { normalizeDeckId, type DeckStore } from './store.ts';
import type { StoredDeck } from './types.ts';
import { toDetail } from './views.ts';

/**
 * data of POST /v1/decks/details (interface.md §4.5, decisions.md): the public decks among `ids`
 * with zones resolved, and every other requested id in `unresolved`, in request order, each once
 * (malformed, private and missing alike). A deck asked for twice, in any letter case, is answered
 * once. Two queries for all the decks not read before (DeckStore keeps them); `lookupFor` is called
 * at most once per game, and only when a deck needs the catalog (chrono-core entries without a
 * recognised zone).
 */
export async function deckDetails(
  store: DeckStore,
  cache: ResolvedDeckCache,
  ids: readonly string[],
  lookupFor: (game: GameSlug) => Promise<CardLookup>,
): Promise<DeckDetailsResult> {
  const { decks, unresolved, lookup } = requested(store, ids, lookupFor);
  return { decks: await Promise.all(decks.map((deck) => cache.resolve(deck, lookup(deck.gameId)).then((cards) => toDetail(deck, cards)))), unresolved };
}

/**
 * The JSON of deckDetails' result as bytes, byte for byte `JSON.stringify(await deckDetails(...))`,
 * each deck's part made once per StoredDeck (DeckStore hands out the same object until the database
 * changes, deck-cache.ts) and kept in `rendered`. Serialising ten deck details was more than half
 * of a POST /v1/decks/details of ten ids once the decks were kept in memory (about 30 us of
 * JSON.stringify, and 4 us more to encode the text; bench:hotpath, "POST /v1/decks/details (10 ids)").
 */
export function deckDetailsJson(
  store: DeckStore,
  cache: ResolvedDeckCache,
  rendered: WeakMap<StoredDeck, Buffer>,
  ids: readonly string[],
  lookupFor: (game: GameSlug) => Promise<CardLookup>,
  /** Bytes around the JSON, in the same buffer (the response's `{"data":` and `}`: one copy of the whole, not two). */
  around: { before: Buffer; after: Buffer } = NOTHING_AROUND,
): MaybePromise<Buffer> {
  const { decks, unresolved, lookup } = requested(store, ids, lookupFor);
  const made = decks.map(
    (deck) =>
      rendered.get(deck) ??
      cache.resolve(deck, lookup(deck.gameId)).then((cards) => {
        const part = Buffer.from(JSON.stringify(toDetail(deck, cards) satisfies DeckDetail));
        rendered.set(deck, part);
        return part;
      }),
  );
  // Every part kept (the usual case): the bytes at once, without a turn through Promise.all.
  if (!made.some((part) => part instanceof Promise)) return joined(made as Buffer[], unresolved, around);
  return Promise.all(made).then((ready) => joined(ready, unresolved, around));
}

function joined(ready: readonly Buffer[], unresolved: readonly string[], around: { before: Buffer; after: Buffer }): Buffer {
  const parts: Buffer[] = [around.before, DECKS_OPEN];
  for (const [i, part] of ready.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(part);
  }
  parts.push(Buffer.from(`],"unresolved":${JSON.stringify(unresolved)}}`), around.after);
  return Buffer.concat(parts);
}

const DECKS_OPEN = Buffer.from('{"decks":[');
const NOTHING_AROUND = { before: Buffer.alloc(0), after: Buffer.alloc(0) };
const COMMA = Buffer.from(',');

/** The public decks asked for (each once, in request order) and the ids left unresolved. */
function requested(store: DeckStore, ids: readonly string[], lookupFor: (game: GameSlug) => Promise<CardLookup>) {
  if (ids.length > DECK_DETAILS_MAX_IDS) throw new RangeError(`at most ${DECK_DETAILS_MAX_IDS} ids per request`);
  const found = new Map(store.getPublicDecks(ids).map((deck) => [deck.id, deck]));
  const lookups = new Map<GameSlug, Promise<CardLookup>>();
  const lookup = (game: GameSlug): CardLookup => async (cardId) => {
    let made = lookups.get(game);
    if (!made) lookups.set(game, (made = lookupFor(game)));
    return (await made)(cardId);
  };

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
  return { decks, unresolved, lookup };
}
