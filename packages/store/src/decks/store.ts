import { randomBytes } from 'node:crypto';
import type { CardEntry, GameSlug } from '@snapdeck/contract';
import { andThen, contentTag, type Body, type MaybePromise } from '@snapdeck/snapshot';
import type { Db } from '../db/database.ts';
import { hashSecret } from '../keys/store.ts';
import { lookupsOf, type CatalogFor } from './card-lookup.ts';
import { detailsBody, requestedDecks } from './details.ts';
import { KeptDecks } from './kept-decks.ts';
import { PublicListing, type ListPublicPage, type ListPublicQuery } from './public-listing.ts';
import { ResolvedDeckCache } from './resolved-cache.ts';
import { deckStatements, normalizeDeckId, toDeck, toEntry } from './rows.ts';
import type { StoredCardEntry, StoredDeck } from './types.ts';
import { toDetail, toFullDeck } from './views.ts';

export { normalizeDeckId } from './rows.ts';
export { MAX_LIST_LIMIT, type ListPublicPage, type ListPublicQuery } from './public-listing.ts';

/**
 * Decks in SQLite (schema: migration 2 in db/migrations.ts): read, listed, answered and shared.
 *
 * Reads go through the kept decks (kept-decks.ts): a deck is read once, then served from memory
 * with what was made of it (its format=json body, its POST /v1/decks/details part) until the
 * database changes; the routes ask for those bytes (jsonBody, detailsJson) and keep nothing.
 *
 * Listings: public-listing.ts.
 */

export interface DeckStoreOptions {
  /** The clock for token expiry (tests inject one). */
  now?: () => number;
  /**
   * Where tokens are looked up (by hash) instead of this database's deck_tokens: a gateway
   * following the published store keeps them in the separate auth part (published/layout.ts).
   */
  tokens?: TokenLookup;
  /**
   * Zones resolved from the catalog, shared by the DeckStores of one source so that a deck keeps
   * its zones until its updatedAt changes (resolved-cache.ts); default: this store's own.
   */
  zones?: ResolvedDeckCache;
}

/** The deck a token hash was issued for, and when it expires (null: never), or undefined. */
export type TokenLookup = (tokenHash: string) => { deck_id: string; expires_at: number | null } | undefined;

/** Share tokens live at most 24 hours (interface.md §8); an operator may issue shorter ones. */
export const MAX_SHARE_TTL_SECONDS = 86_400;
export const SHARE_TOKEN_PATTERN = /^st_[0-9a-f]{32}$/;
export const PRIVATE_LINK_PATTERN = /^pd_[0-9a-f]{32}$/;

export class DeckStore {
  private readonly now: () => number;
  private readonly listing: PublicListing;
  private readonly statements;
  private readonly reads;

  private readonly tokenLookup: TokenLookup;
  /** Decks read and what is made of them, kept until the database changes (kept-decks.ts). */
  private readonly kept: KeptDecks;
  private readonly zones: ResolvedDeckCache;

  constructor(readonly db: Db, options: DeckStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.reads = deckStatements(db);
    this.statements = {
      seqOf: db.prepare<[string], { seq: number }>('SELECT seq FROM decks WHERE id = ?'),
      tokenFor: db.prepare<[string], { deck_id: string; expires_at: number | null }>(
        'SELECT d.id AS deck_id, t.expires_at FROM deck_tokens t JOIN decks d ON d.seq = t.deck_seq WHERE t.token_hash = ?',
      ),
      insertToken: db.prepare('INSERT INTO deck_tokens (token_hash, deck_seq, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?)'),
      pruneTokens: db.prepare('DELETE FROM deck_tokens WHERE expires_at IS NOT NULL AND expires_at <= ?'),
      deleteTokens: db.prepare('DELETE FROM deck_tokens WHERE deck_seq = ?'),
    };
    const tokenFor = this.statements.tokenFor;
    this.tokenLookup = options.tokens ?? ((hash) => tokenFor.get(hash));
    this.kept = new KeptDecks(db);
    this.listing = new PublicListing(db, this.kept);
    this.zones = options.zones ?? new ResolvedDeckCache();
  }

  /** One keyset page of a game's public decks (decisions.md "Decks" for the order). */
  listPublic(query: ListPublicQuery): ListPublicPage {
    return this.listing.page(query);
  }

  /** Public decks of a game, optionally only those with updatedAt >= updatedSince. */
  totalCount(game: GameSlug, updatedSince: number | null = null): number {
    return this.listing.totalCount(game, updatedSince);
  }

  /** A deck of any visibility, with its entries in import order, or null. */
  getDeck(id: string): StoredDeck | null {
    const deckId = normalizeDeckId(id);
    if (!deckId) return null;
    const kept = this.kept.fresh();
    let deck = kept.get(deckId);
    if (deck === undefined) {
      const row = this.reads.deckById.get(deckId);
      deck = row ? toDeck(row, this.reads.cardsOfDeck.all(row.seq).map(toEntry)) : null;
      kept.set(deckId, deck);
    }
    return deck;
  }

  /**
   * The public decks among `ids` (any order; malformed, private and missing ids are simply not
   * returned). The decks not kept already are read in two statements, whatever their number.
   */
  getPublicDecks(ids: readonly string[]): StoredDeck[] {
    const kept = this.kept.fresh();
    const found: StoredDeck[] = [];
    const missing: string[] = [];
    for (const id of new Set(ids.map(normalizeDeckId).filter((id): id is string => id !== null))) {
      const deck = kept.get(id);
      if (deck === undefined) missing.push(id);
      else if (deck) found.push(deck);
    }
    if (missing.length > 0) {
      const rows = this.reads.decksByIds.all(JSON.stringify(missing));
      const cards = new Map<number, StoredCardEntry[]>(rows.map((row) => [row.seq, []]));
      if (rows.length > 0) {
        for (const card of this.reads.cardsOfDecks.all(JSON.stringify(rows.map((row) => row.seq)))) cards.get(card.deck_seq)!.push(toEntry(card));
      }
      const read = new Map(rows.map((row) => [row.id, toDeck(row, cards.get(row.seq)!)]));
      for (const id of missing) {
        const deck = read.get(id) ?? null;
        kept.set(id, deck);
        if (deck) found.push(deck);
      }
    }
    return found.filter((deck) => deck.visibility === 'public');
  }

  /** The deck's card entries as served, zones resolved (`catalog` asked only for a card whose zone needs it). */
  servedCards(deck: StoredDeck, catalog: CatalogFor): Promise<CardEntry[]> {
    return this.zones.resolve(deck, lookupsOf(catalog)(deck.gameId));
  }

  /**
   * The body of GET /v1/decks/{deckId} (format=json) for a deck getDeck handed out: made once,
   * kept with the deck (at once, without a Promise, when kept: bench:hotpath, "GET
   * /v1/decks/{deckId} (json)").
   */
  jsonBody(deck: StoredDeck, catalog: CatalogFor): MaybePromise<Body> {
    const made = this.kept.renderingsOf(deck);
    if (made.json) return made.json;
    return this.servedCards(deck, catalog).then((cards) => {
      const bytes = Buffer.from(JSON.stringify({ data: toFullDeck(deck, cards) }));
      return (made.json = { bytes, etag: contentTag(bytes), encoding: 'identity' });
    });
  }

  /**
   * The body of POST /v1/decks/details for `ids` (deckDetails, byte for byte `{"data":` its JSON
   * `}`): each deck's part made once and kept with the deck, so that a body of kept decks is one
   * copy of their parts, ready at once (serialising the details was the largest part of such a
   * request once its decks were kept: bench:hotpath, "POST /v1/decks/details (10 ids)").
   */
  detailsJson(ids: readonly string[], catalog: CatalogFor): MaybePromise<Buffer> {
    const { decks, unresolved } = requestedDecks(this, ids);
    const lookups = lookupsOf(catalog);
    const parts = decks.map((deck) => {
      const made = this.kept.renderingsOf(deck);
      return made.details ?? this.zones.resolve(deck, lookups(deck.gameId)).then((cards) => (made.details = Buffer.from(JSON.stringify(toDetail(deck, cards)))));
    });
    // Every part kept (the usual case): the bytes at once, without a turn through Promise.all.
    if (!parts.some((part) => part instanceof Promise)) return detailsBody(parts as Buffer[], unresolved);
    return andThen(Promise.all(parts), (ready) => detailsBody(ready, unresolved));
  }

  /**
   * Whether `token` opens deck `deckId` now: a share token that has not expired, or a pd_ private
   * link, issued for that deck. Tokens are looked up by hash, like API keys.
   */
  resolveToken(deckId: string, token: string, now: number = this.now()): boolean {
    if (!SHARE_TOKEN_PATTERN.test(token) && !PRIVATE_LINK_PATTERN.test(token)) return false;
    const row = this.tokenLookup(hashSecret(token));
    if (!row || row.deck_id !== normalizeDeckId(deckId)) return false;
    return row.expires_at === null || now < row.expires_at;
  }

  /** A new share token for the deck, valid `ttlSeconds` (at most 24 hours); null when there is no such deck. */
  createShareToken(deckId: string, ttlSeconds: number = MAX_SHARE_TTL_SECONDS): string | null {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_SHARE_TTL_SECONDS) {
      throw new RangeError(`ttl must be a whole number of seconds from 1 to ${MAX_SHARE_TTL_SECONDS}`);
    }
    const now = this.now();
    return this.db.transaction(() => {
      const seq = this.seqOf(deckId);
      if (seq === null) return null;
      this.statements.pruneTokens.run(now); // expired share tokens are useless; keep the table small
      const token = `st_${randomBytes(16).toString('hex')}`;
      this.statements.insertToken.run(hashSecret(token), seq, 'share', now, now + ttlSeconds * 1000);
      return token;
    })();
  }

  /** A new non-expiring `pd_` private link for the deck; null when there is no such deck. */
  createPrivateLink(deckId: string): string | null {
    const seq = this.seqOf(deckId);
    if (seq === null) return null;
    const token = `pd_${randomBytes(16).toString('hex')}`;
    this.statements.insertToken.run(hashSecret(token), seq, 'private', this.now(), null);
    return token;
  }

  /** Revokes every share token and private link of a deck; returns how many there were. */
  revokeTokens(deckId: string): number {
    const seq = this.seqOf(deckId);
    return seq === null ? 0 : this.statements.deleteTokens.run(seq).changes;
  }

  private seqOf(deckId: string): number | null {
    const id = normalizeDeckId(deckId);
    return id ? (this.statements.seqOf.get(id)?.seq ?? null) : null;
  }
}
