import type { CardsPage, GameSlug } from '@snapdeck/contract';
import { HITS_PER_PAGE } from '@snapdeck/contract/limits';
import { InvalidCursorError } from './errors.ts';
import type { GameHits } from './types.ts';

export interface WalkProgress {
  /** Pages fetched in this walk (restarts included). */
  pages: number;
  /** Hits yielded so far (each id once). */
  hits: number;
  /** totalHits of the snapshot version being walked. */
  totalHits: number;
  /** Restarts from page 1 after 400 `Invalid cursor` (a rebuild whose old version was collected). */
  restarts: number;
}

export interface WalkOptions {
  /** Hits per page, within the contract's HITS_PER_PAGE (default its max: the fewest requests). */
  hitsPerPage?: number;
  /** Called after each page. */
  onProgress?: (progress: Readonly<WalkProgress>) => void;
  /** Restarts allowed before the InvalidCursorError is thrown (default 3). */
  maxRestarts?: number;
}

export type PageFetcher<G extends GameSlug> = (hitsPerPage: number, cursor: string | undefined) => Promise<CardsPage<GameHits[G]>>;

/**
 * Every hit of a game, page by page (interface.md §4.2). On 400 `Invalid cursor` the walk
 * restarts from page 1, as the contract says, and skips the ids it has already yielded: no id
 * comes twice in one walk. Pages are fetched as the consumer asks for hits.
 */
export async function* walkCards<G extends GameSlug>(fetchPage: PageFetcher<G>, options: WalkOptions = {}): AsyncGenerator<GameHits[G], WalkProgress> {
  const hitsPerPage = options.hitsPerPage ?? HITS_PER_PAGE.max;
  const maxRestarts = options.maxRestarts ?? 3;
  const seen = new Set<string>();
  const progress: WalkProgress = { pages: 0, hits: 0, totalHits: 0, restarts: 0 };
  let cursor: string | undefined;
  for (;;) {
    let page: CardsPage<GameHits[G]>;
    try {
      page = await fetchPage(hitsPerPage, cursor);
    } catch (error) {
      if (!(error instanceof InvalidCursorError) || cursor === undefined || progress.restarts >= maxRestarts) throw error;
      progress.restarts += 1;
      cursor = undefined;
      continue;
    }
    progress.pages += 1;
    progress.totalHits = page.totalHits;
    for (const hit of page.hits) {
      if (seen.has(hit.id)) continue;
      seen.add(hit.id);
      progress.hits += 1;
      yield hit;
    }
    options.onProgress?.({ ...progress });
    if (page.cursor === null) return progress;
    cursor = page.cursor;
  }
}
