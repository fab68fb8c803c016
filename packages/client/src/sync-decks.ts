import type { DeckChangesPage, DeckDetail, DeckDetailsResult, DeckSummary, GameSlug, PublicDecksPage } from '@snapdeck/contract';
import { DECK_CHANGES_LIMIT, DECK_LIST_LIMIT } from '@snapdeck/contract/limits';
import { GoneError, InvalidCursorError } from './errors.ts';
import type { PublicDecksQuery } from './decks.ts';

/**
 * Where a deck sync stopped: the opaque cursor of GET /decks/changes the partner's copy is at.
 * A plain string: store it as it is and pass it back as `checkpoint`. Valid on every gateway
 * following the operator's store; one of another game is refused (InvalidCursorError).
 */
export type DeckCheckpoint = string;

/** A public deck as a sync yields it: its details (POST /decks/details) and its updatedAt. */
export type SyncedDeck = DeckDetail & Pick<DeckSummary, 'updatedAt'>;

/**
 * What a deck sync yields, in order. `reset` first when it enumerates the public decks (no
 * checkpoint: `first sync`; a checkpoint older than the kept removals, 410: `checkpoint gone`):
 * drop the local copy, every public deck follows as an upsert. Then `upsert` (store the deck under
 * its id, replacing what you had) and `removed` (the deck was deleted or is no longer public:
 * delete it), in the order the operator committed them; last `checkpoint`, the value to store
 * (also on `DeckSync.checkpoint`). A deck may come twice; apply each event as it comes.
 */
export type DeckSyncEvent =
  | { type: 'reset'; reason: 'first sync' | 'checkpoint gone' }
  | { type: 'upsert'; deck: SyncedDeck }
  | { type: 'removed'; id: string }
  | { type: 'checkpoint'; checkpoint: DeckCheckpoint };

export interface DeckSyncProgress {
  /** Requests made (feed pages, listing pages, details calls). */
  requests: number;
  upserts: number;
  removals: number;
  /** Enumerations started (the first sync, a 410, a listing cursor refused midway). */
  resets: number;
  /** Feed pages answered "not yet" by a gateway behind the one that issued the cursor. */
  behind: number;
}

export interface DeckSyncOptions {
  /** The checkpoint of the previous sync; none: a first sync (enumeration, then the feed). */
  checkpoint?: DeckCheckpoint | null;
  onProgress?: (progress: Readonly<DeckSyncProgress>) => void;
  /**
   * How long to wait, in all, for a gateway that has not caught up with the cursor (an empty page
   * with hasMore): asked again every 250 ms; past it the sync ends at the checkpoint reached, and
   * the next one goes on from there. Default 10 000 ms (gateways follow the store within seconds).
   */
  behindWaitMs?: number;
  /** Enumerations restarted after 400 `Invalid cursor` of the listing before giving up (default 3). */
  maxRestarts?: number;
  /** Changes per page of the feed (default and most: 1000). */
  limit?: number;
}

export interface DeckSyncApi {
  getDeckChanges(game: GameSlug, options: { since?: string; limit?: number }): Promise<DeckChangesPage>;
  listPublicDecks(game: GameSlug, query: PublicDecksQuery): Promise<PublicDecksPage>;
  getDeckDetails(ids: readonly string[]): Promise<DeckDetailsResult>;
}

const BEHIND_POLL_MS = 250;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The deck sync of decisions.md "Deck changes": from a checkpoint, the pages of GET /decks/changes
 * (1,000 changes a page), the upserts' details fetched 50 at a time; without one, or when the
 * server answers 410, the cursor of now, an enumeration of GET /decks/public (announced by
 * `reset`), then the feed from that cursor. Nothing is enumerated otherwise: removals come from
 * the feed.
 */
export class DeckSync implements AsyncIterable<DeckSyncEvent> {
  /** The checkpoint given, then the one reached after each page of the feed; store it once the iteration has ended. */
  checkpoint: DeckCheckpoint | null;
  readonly progress: DeckSyncProgress = { requests: 0, upserts: 0, removals: 0, resets: 0, behind: 0 };

  constructor(private readonly api: DeckSyncApi, private readonly game: GameSlug, private readonly options: DeckSyncOptions = {}) {
    this.checkpoint = options.checkpoint ?? null;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<DeckSyncEvent> {
    let reason: 'first sync' | 'checkpoint gone' | null = 'first sync';
    if (this.checkpoint !== null) {
      try {
        yield* this.follow(this.checkpoint);
        reason = null;
      } catch (error) {
        if (!(error instanceof GoneError)) throw error;
        reason = 'checkpoint gone';
      }
    }
    // An enumeration's cursor of now may itself go out of date before the feed is read (a publish
    // that prunes removals lands during a long first sync): enumerate again, as after any 410.
    for (let restarts = 0; reason !== null; restarts++) {
      try {
        yield* this.enumerate(reason);
        reason = null;
      } catch (error) {
        if (!(error instanceof GoneError) || restarts >= (this.options.maxRestarts ?? 3)) throw error;
        reason = 'checkpoint gone';
      }
    }
    yield { type: 'checkpoint', checkpoint: this.checkpoint! };
  }

  /** The cursor of now, then every public deck as an upsert after `reset`, then the feed from that cursor. */
  private async *enumerate(reason: 'first sync' | 'checkpoint gone'): AsyncGenerator<DeckSyncEvent> {
    const maxRestarts = this.options.maxRestarts ?? 3;
    const now = await this.counted(this.api.getDeckChanges(this.game, {}));
    for (let restarts = 0; ; restarts++) {
      this.progress.resets += 1;
      yield { type: 'reset', reason };
      let startAfter: string | undefined;
      try {
        for (;;) {
          // By createdAt, which an update does not move: no deck is skipped by a change during the walk.
          const page = await this.counted(this.api.listPublicDecks(this.game, { limit: DECK_LIST_LIMIT.max, sort: 'createdAt', startAfter }));
          yield* this.upserts(page.decks.map((summary) => ({ id: summary.id, change: 'upsert' as const, updatedAt: summary.updatedAt })));
          if (!page.hasMore) break;
          startAfter = page.nextCursor;
        }
        break;
      } catch (error) {
        if (!(error instanceof InvalidCursorError) || startAfter === undefined || restarts >= maxRestarts) throw error;
      }
    }
    // Whatever changed since the cursor of now comes from the feed (a deck seen twice is harmless).
    this.checkpoint = now.cursor;
    yield* this.follow(now.cursor);
  }

  /** Every page of the feed after `since`; returns the cursor reached. */
  private async *follow(since: DeckCheckpoint): AsyncGenerator<DeckSyncEvent, DeckCheckpoint> {
    let cursor = since;
    let waited = 0;
    const behindWaitMs = this.options.behindWaitMs ?? 10_000;
    for (;;) {
      const page = await this.counted(this.api.getDeckChanges(this.game, { since: cursor, limit: this.options.limit ?? DECK_CHANGES_LIMIT.max }));
      if (page.changes.length === 0 && page.hasMore) {
        // This gateway is behind the one that issued the cursor: ask again shortly, or stop here.
        this.progress.behind += 1;
        if (waited >= behindWaitMs) return cursor;
        await sleep(BEHIND_POLL_MS);
        waited += BEHIND_POLL_MS;
        continue;
      }
      const detailsRead = yield* this.upserts(page.changes);
      cursor = page.cursor;
      this.checkpoint = cursor;
      // Details are read after their page, and a gateway may move to a newer version in between:
      // a deck whose details came from it has that version's change still to come. So the feed
      // is asked once more after a last page that needed details; the sync ends on a last page
      // that needed none (usually empty), when every deck it yielded is as that version has it.
      if (!page.hasMore && !detailsRead) return cursor;
    }
  }

  /** Applies a page of changes in order: upserts with their details (50 a call), removals as they are. Returns whether details were read. */
  private async *upserts(changes: DeckChangesPage['changes']): AsyncGenerator<DeckSyncEvent, boolean> {
    const wanted = changes.filter((change) => change.change === 'upsert').map((change) => change.id);
    const details = new Map<string, DeckDetail>();
    for (let i = 0; i < wanted.length; i += 50) {
      const part = await this.counted(this.api.getDeckDetails(wanted.slice(i, i + 50)));
      for (const deck of part.decks) details.set(deck.id, deck);
    }
    for (const change of changes) {
      const deck = change.change === 'upsert' ? details.get(change.id) : undefined;
      if (deck && change.change === 'upsert') {
        this.progress.upserts += 1;
        yield { type: 'upsert', deck: { ...deck, updatedAt: change.updatedAt } };
      } else {
        // Removed, or no longer public by the time its details were asked for (its removal follows in the feed).
        this.progress.removals += 1;
        yield { type: 'removed', id: change.id };
      }
    }
    return wanted.length > 0;
  }

  private async counted<T>(request: Promise<T>): Promise<T> {
    const result = await request;
    this.progress.requests += 1;
    this.options.onProgress?.({ ...this.progress });
    return result;
  }
}
