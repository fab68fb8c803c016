import { LRUCache } from 'lru-cache';
import type { Body } from '@snapdeck/snapshot';
import { commitCheck, type CommitCheck } from '../db/commit-check.ts';
import type { Db } from '../db/database.ts';
import type { StoredDeck } from './types.ts';

/** About this many bytes of decks are kept (an estimate per deck: DECK_BYTES plus ENTRY_BYTES per card entry). */
export const DECK_CACHE_BYTES = 4 * 1024 * 1024;
const DECK_BYTES = 400;
const ENTRY_BYTES = 80;

/**
 * Deck imports committed through each connection (importDecks, the only code that writes the deck
 * tables), counted here because SQLite's data_version (commitCheck's way for a database not in WAL
 * mode) moves only for other connections' commits. Read from a WeakMap rather than with
 * `SELECT total_changes()`: one SQLite statement fewer on every deck read (bench:hotpath,
 * "GET /v1/decks/{deckId} (json)").
 */
const deckWrites = new WeakMap<Db, number>();

/** Called by importDecks once its transaction is committed. */
export function noteDeckWrite(db: Db): void {
  deckWrites.set(db, (deckWrites.get(db) ?? 0) + 1);
}

/** What is made from a kept deck for its answers (DeckStore.jsonBody, DeckStore.detailsJson). */
export interface DeckRenderings {
  /** GET /v1/decks/{deckId}'s format=json body. */
  json?: Body;
  /** The deck's part of POST /v1/decks/details's `decks`. */
  details?: Buffer;
}

/**
 * Decks as DeckStore reads them, and what is made from them, kept while the database does not
 * change: the one place a deck reader learns of a commit. A deck read for a request is two
 * statements and an object per card entry; a kept one is a map lookup after one check per read
 * (`fresh`). The check makes the keeping exact: any commit by another connection (`decks import` on
 * the writer database: db/commit-check.ts) or any import through this one (in the same process:
 * noteDeckWrite) drops every deck and everything made from them, so nothing is served that a fresh
 * read would not return. A published store's decks never change under a view; the check then never
 * drops anything. `generation` moves with each drop, for what others keep (the listing's counts).
 *
 * A deck that does not exist is kept too (as null), so ids asked for again and again cost no query.
 * The same StoredDeck object is handed out until it is dropped, and its renderings are kept by that
 * object. Bounded by an estimate of the decks' size (DECK_CACHE_BYTES); a deck's renderings go with it.
 */
export class KeptDecks {
  private readonly decks = new LRUCache<string, StoredDeck | false>({
    maxSize: DECK_CACHE_BYTES,
    sizeCalculation: (deck) => (deck === false ? DECK_BYTES : DECK_BYTES + ENTRY_BYTES * deck.cards.length),
  });
  private renderings = new WeakMap<StoredDeck, DeckRenderings>();
  /** Says when another connection committed; deckWrites when this one imported. */
  private readonly commits: CommitCheck;
  private writes = Number.NaN;
  private changes = 0;

  constructor(private readonly db: Db) {
    this.commits = commitCheck(db);
  }

  /** Drops every deck when the database changed since the last call; call once per read of the store. */
  fresh(): this {
    const writes = deckWrites.get(this.db) ?? 0;
    // Both asked every time: each check keeps what it saw.
    const committed = this.commits.changed();
    if (committed || writes !== this.writes) {
      this.decks.clear();
      this.renderings = new WeakMap();
      this.writes = writes;
      this.changes += 1;
    }
    return this;
  }

  /** How many times `fresh` found the database changed: what was computed before the last change is stale. */
  get generation(): number {
    return this.changes;
  }

  /** The deck kept for a normalized id: the deck, null for no such deck, undefined when not kept. */
  get(id: string): StoredDeck | null | undefined {
    const deck = this.decks.get(id);
    return deck === false ? null : deck;
  }

  set(id: string, deck: StoredDeck | null): void {
    this.decks.set(id, deck ?? false);
  }

  /** What has been made from `deck` (a deck `get` handed out), to read or to fill in. */
  renderingsOf(deck: StoredDeck): DeckRenderings {
    let made = this.renderings.get(deck);
    if (made === undefined) this.renderings.set(deck, (made = {}));
    return made;
  }
}
