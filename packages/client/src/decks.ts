import type { DeckDetail, DeckDetailsResult, DeckSort, DeckSummary, GameSlug, PublicDecksPage } from '@snapdeck/contract';
import { DECK_LIST_LIMIT } from '@snapdeck/contract/limits';
import { InvalidCursorError } from './errors.ts';

/**
 * Where an incremental deck sync stopped: the updatedAt of the last deck processed and the ids
 * processed at exactly that time (the listing's boundary is inclusive, interface.md §4.4). Plain
 * JSON: store it as it is and pass it back as `since`.
 */
export interface DeckCheckpoint {
  updatedAt: string;
  ids: string[];
}

/** A deck as a sync yields it: its details (POST /decks/details) and its listing timestamps. */
export type SyncedDeck = DeckDetail & Pick<DeckSummary, 'createdAt' | 'updatedAt'>;

export interface SyncProgress {
  pages: number;
  /** Summaries listed and not already processed before. */
  listed: number;
  decks: number;
  unresolved: number;
  restarts: number;
}

export interface SyncOptions {
  /** The checkpoint of the previous sync; none: every public deck. */
  since?: DeckCheckpoint | null;
  onProgress?: (progress: Readonly<SyncProgress>) => void;
  /** Restarts (from the checkpoint reached) after 400 `Invalid cursor` before giving up (default 3). */
  maxRestarts?: number;
}

/** The query of GET /decks/public besides gameId. */
export interface PublicDecksQuery {
  limit?: number;
  startAfter?: string;
  sort?: DeckSort;
  updatedSince?: string;
}

export interface DeckApi {
  listPublicDecks(game: GameSlug, query: PublicDecksQuery): Promise<PublicDecksPage>;
  getDeckDetails(ids: string[]): Promise<DeckDetailsResult>;
}

/** Ascending updatedAt order needs updatedSince: this one lists every deck. */
const EPOCH = '1970-01-01T00:00:00.000Z';

/**
 * The incremental deck sync of interface.md §4.4 and §4.8: pages of GET /decks/public with
 * updatedSince (ascending by updatedAt), the inclusive boundary deduplicated by (id, updatedAt),
 * details 50 ids per POST /decks/details. Iterate it for the new and changed decks; then store
 * `checkpoint` for the next run. Ids listed but no longer public when their details were asked
 * for are in `unresolved` (remove them locally). Removals without an update are only found by a
 * full enumeration (listAllDeckIds).
 */
export class DeckSync implements AsyncIterable<SyncedDeck> {
  /** Advances with every deck processed; the value to store once the iteration has ended. */
  checkpoint: DeckCheckpoint | null;
  readonly unresolved: string[] = [];
  readonly progress: SyncProgress = { pages: 0, listed: 0, decks: 0, unresolved: 0, restarts: 0 };

  constructor(
    private readonly api: DeckApi,
    private readonly game: GameSlug,
    private readonly options: SyncOptions = {},
  ) {
    this.checkpoint = options.since ? { updatedAt: options.since.updatedAt, ids: [...options.since.ids] } : null;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SyncedDeck> {
    const maxRestarts = this.options.maxRestarts ?? 3;
    let since = this.checkpoint?.updatedAt ?? EPOCH;
    let startAfter: string | undefined;
    for (;;) {
      let page: PublicDecksPage;
      try {
        page = await this.api.listPublicDecks(this.game, { limit: DECK_LIST_LIMIT.max, updatedSince: since, startAfter });
      } catch (error) {
        if (!(error instanceof InvalidCursorError) || startAfter === undefined || this.progress.restarts >= maxRestarts) throw error;
        // Resume from what is done: the checkpoint's boundary is deduplicated as at the start.
        this.progress.restarts += 1;
        since = this.checkpoint?.updatedAt ?? EPOCH;
        startAfter = undefined;
        continue;
      }
      this.progress.pages += 1;
      const fresh = page.decks.filter((summary) => !this.processed(summary));
      this.progress.listed += fresh.length;
      if (fresh.length > 0) {
        const details = await this.api.getDeckDetails(fresh.map((summary) => summary.id));
        const byId = new Map(details.decks.map((deck) => [deck.id, deck]));
        for (const summary of fresh) {
          const deck = byId.get(summary.id);
          this.advance(summary);
          if (deck) {
            this.progress.decks += 1;
            yield { ...deck, createdAt: summary.createdAt, updatedAt: summary.updatedAt };
          } else {
            this.progress.unresolved += 1;
            this.unresolved.push(summary.id);
          }
        }
      }
      this.options.onProgress?.({ ...this.progress });
      if (!page.hasMore) return;
      startAfter = page.nextCursor;
    }
  }

  /** Already processed: at the checkpoint's exact time and among its ids. */
  private processed(summary: DeckSummary): boolean {
    return this.checkpoint !== null && summary.updatedAt === this.checkpoint.updatedAt && this.checkpoint.ids.includes(summary.id);
  }

  private advance(summary: DeckSummary): void {
    if (this.checkpoint && this.checkpoint.updatedAt === summary.updatedAt) this.checkpoint.ids.push(summary.id);
    else this.checkpoint = { updatedAt: summary.updatedAt, ids: [summary.id] };
  }
}

export interface EnumerationProgress {
  pages: number;
  ids: number;
  totalCount: number;
  restarts: number;
}

/**
 * Every public deck id of a game, for the periodic full enumeration that finds removed and
 * privatized decks (compare with the local copy). Listed by createdAt, which an update does not
 * move: a deck updated during the enumeration can neither be skipped nor counted twice.
 */
export async function listAllDeckIds(
  api: DeckApi,
  game: GameSlug,
  options: { onProgress?: (progress: Readonly<EnumerationProgress>) => void; maxRestarts?: number } = {},
): Promise<Set<string>> {
  const maxRestarts = options.maxRestarts ?? 3;
  const progress: EnumerationProgress = { pages: 0, ids: 0, totalCount: 0, restarts: 0 };
  let ids = new Set<string>();
  let startAfter: string | undefined;
  for (;;) {
    let page: PublicDecksPage;
    try {
      page = await api.listPublicDecks(game, { limit: DECK_LIST_LIMIT.max, sort: 'createdAt', startAfter });
    } catch (error) {
      if (!(error instanceof InvalidCursorError) || startAfter === undefined || progress.restarts >= maxRestarts) throw error;
      progress.restarts += 1;
      ids = new Set();
      startAfter = undefined;
      continue;
    }
    progress.pages += 1;
    progress.totalCount = page.totalCount;
    for (const summary of page.decks) ids.add(summary.id);
    progress.ids = ids.size;
    options.onProgress?.({ ...progress });
    if (!page.hasMore) return ids;
    startAfter = page.nextCursor;
  }
}
