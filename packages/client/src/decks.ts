import type { DeckDetailsResult, DeckSort, GameSlug, PublicDecksPage } from '@snapdeck/contract';
import { DECK_LIST_LIMIT } from '@snapdeck/contract/limits';
import { InvalidCursorError } from './errors.ts';

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

export interface EnumerationProgress {
  pages: number;
  ids: number;
  totalCount: number;
  restarts: number;
}

/**
 * Every public deck id of a game (a full enumeration: about 20,000 requests at a million decks).
 * A mirror does not need it: syncDecks gets removals from the deck change feed. Listed by createdAt, which an update does not
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
