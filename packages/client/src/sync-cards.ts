import type { CardChangesPage, CardsPage, GameSlug } from '@snapdeck/contract';
import { CHANGES_LIMIT, HITS_PER_PAGE } from '@snapdeck/contract/limits';
import { GoneError, InvalidCursorError } from './errors.ts';
import type { GameHits } from './types.ts';

/**
 * Where a card sync stopped: the game and the snapshot version the partner's copy equals (the
 * `indexVersion` of the walk, or the `toVersion` of the changes applied). Plain JSON: store it as
 * it is and pass it back as `checkpoint`.
 */
export interface CardCheckpoint {
  game: GameSlug;
  version: string;
}

/**
 * What a card sync yields, in order: `reset` first when it fell back to a full walk (no
 * checkpoint, or its version is no longer kept: 410): drop the local copy, every card follows as
 * an upsert. Then `upsert` (store the hit under its id) and `delete` events, and last
 * `checkpoint`, the value to store for the next sync (also on `CardSync.checkpoint`).
 */
export type CardSyncEvent<H> =
  | { type: 'reset' }
  | { type: 'upsert'; hit: H }
  | { type: 'delete'; cardId: string }
  | { type: 'checkpoint'; checkpoint: CardCheckpoint };

export interface CardSyncProgress {
  /** Pages fetched (changes or walk). */
  requests: number;
  upserts: number;
  deletes: number;
  /** Full walks started (the first fallback and any restart of it). */
  resets: number;
}

export interface CardSyncOptions {
  /** The checkpoint of the previous sync; none: a full walk. */
  checkpoint?: CardCheckpoint | null;
  onProgress?: (progress: Readonly<CardSyncProgress>) => void;
  /** Restarts of a full walk after 400 `Invalid cursor` before giving up (default 3). */
  maxRestarts?: number;
}

export interface CardSyncApi<G extends GameSlug> {
  getCardsPage(game: G, options: { hitsPerPage?: number; cursor?: string }): Promise<CardsPage<GameHits[G]>>;
  getCardChanges(game: G, options: { since: string; limit?: number; cursor?: string }): Promise<CardChangesPage<GameHits[G]>>;
}

/**
 * The incremental card sync of decisions.md "Card changes": from a checkpoint, the pages of
 * GET /games/{slug}/changes (1000 changes a page, so a nightly sync of a handful of changes is one
 * request); without one, or when the server answers 410 `Version no longer available`, a full
 * walk (1000 hits a page) announced by `reset`. A changes cursor refused midway (the version it
 * pinned was collected) also falls back to the full walk: a partial net change cannot be resumed.
 */
export class CardSync<G extends GameSlug> implements AsyncIterable<CardSyncEvent<GameHits[G]>> {
  /** The checkpoint given, then, once the iteration has ended, the new one to store. */
  checkpoint: CardCheckpoint | null;
  readonly progress: CardSyncProgress = { requests: 0, upserts: 0, deletes: 0, resets: 0 };

  constructor(private readonly api: CardSyncApi<G>, private readonly game: G, private readonly options: CardSyncOptions = {}) {
    this.checkpoint = options.checkpoint ? { game: options.checkpoint.game, version: options.checkpoint.version } : null;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<CardSyncEvent<GameHits[G]>> {
    const from = this.checkpoint?.game === this.game ? this.checkpoint.version : null;
    let version: string | null = null;
    if (from !== null) {
      try {
        version = yield* this.changes(from);
      } catch (error) {
        if (!(error instanceof GoneError) && !(error instanceof InvalidCursorError)) throw error;
      }
    }
    version ??= yield* this.walk();
    this.checkpoint = { game: this.game, version };
    yield { type: 'checkpoint', checkpoint: { ...this.checkpoint } };
  }

  /** Every page of changes since `since`; returns the version reached. */
  private async *changes(since: string): AsyncGenerator<CardSyncEvent<GameHits[G]>, string> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.api.getCardChanges(this.game, { since, limit: CHANGES_LIMIT.max, cursor });
      this.counted();
      for (const change of page.changes) {
        if (change.change === 'upsert') {
          this.progress.upserts += 1;
          yield { type: 'upsert', hit: change.hit };
        } else {
          this.progress.deletes += 1;
          yield { type: 'delete', cardId: change.cardId };
        }
      }
      if (page.cursor === null) return page.toVersion;
      cursor = page.cursor;
    }
  }

  /** A full walk after `reset` (again after each restart); returns the version walked. */
  private async *walk(): AsyncGenerator<CardSyncEvent<GameHits[G]>, string> {
    const maxRestarts = this.options.maxRestarts ?? 3;
    for (let restarts = 0; ; restarts++) {
      this.progress.resets += 1;
      yield { type: 'reset' };
      let cursor: string | undefined;
      try {
        for (;;) {
          const page = await this.api.getCardsPage(this.game, { hitsPerPage: HITS_PER_PAGE.max, cursor });
          this.counted();
          for (const hit of page.hits) {
            this.progress.upserts += 1;
            yield { type: 'upsert', hit };
          }
          if (page.cursor === null) return page.indexVersion;
          cursor = page.cursor;
        }
      } catch (error) {
        if (!(error instanceof InvalidCursorError) || restarts >= maxRestarts) throw error;
      }
    }
  }

  private counted(): void {
    this.progress.requests += 1;
    this.options.onProgress?.({ ...this.progress });
  }
}
