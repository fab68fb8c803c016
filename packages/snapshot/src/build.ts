import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { OperatorError, GAME_SLUGS, HITS_PER_PAGE, isGameSlug, type GameSlug } from '@snapdeck/contract';
import { fileExists, readCatalog, type CatalogEntry } from './catalog.ts';
import { DEFAULT_HITS_PER_PAGE } from './layout.ts';
import { recordCatalogCheck } from './catalog-check.ts';
import { createCompressor } from './compressor.ts';
import { publishVersion, type PublishProgress, type PublishResult } from './publish/publish-version.ts';
import type { StorageDriver } from './storage/driver.ts';

export interface BuildOptions {
  catalogDir: string;
  storage: StorageDriver;
  /** Games to build; all public games with a catalog file when empty. */
  games?: readonly string[];
  hitsPerPage?: readonly number[];
  segmentBytes?: number;
  /** Compression batches below this many bytes are compressed on this thread (default INLINE_BATCH_BYTES: compressor.ts). */
  inlineCompressionBytes?: number;
  onProgress?: (progress: BuildProgress) => void;
  /** Notes for the operator (skipped files and the like). */
  onNotice?: (message: string) => void;
  /**
   * Versions without their search index: bench:search's baseline, and tests whose subject is not
   * search. Never the operator's build (decisions.md: every version has one); such a version has a
   * build hash of its own, so a later build of the same cards does not reuse it.
   */
  withoutSearchIndex?: boolean;
}

export type BuildProgress = { game: string; phase: 'reading'; done: number; total: number } | PublishProgress;

export interface BuildResult extends PublishResult {
  seconds: number;
}

export class BuildUsageError extends OperatorError {}

/** Parses "1,100,1000" into sorted distinct page sizes, each within the contract's HITS_PER_PAGE. */
export function parseHitsPerPageList(text: string): number[] {
  const values = text.split(',').map((part) => part.trim()).filter(Boolean);
  if (values.length === 0) throw new BuildUsageError('the list of page sizes is empty: give at least one');
  const numbers = values.map((value) => {
    if (!/^\d+$/.test(value) || Number(value) < HITS_PER_PAGE.min || Number(value) > HITS_PER_PAGE.max) {
      throw new BuildUsageError(`page size ${JSON.stringify(value)} is not an integer between ${HITS_PER_PAGE.min} and ${HITS_PER_PAGE.max}`);
    }
    return Number(value);
  });
  return [...new Set(numbers)].sort((a, b) => a - b);
}

async function gamesToBuild(catalogDir: string, requested: readonly string[], notice: (message: string) => void): Promise<GameSlug[]> {
  if (requested.length > 0) {
    for (const game of requested) {
      if (!isGameSlug(game)) throw new BuildUsageError(`unknown game ${JSON.stringify(game)}; public games are ${GAME_SLUGS.join(', ')}`);
      if (!(await fileExists(join(catalogDir, `${game}.jsonl`)))) {
        throw new BuildUsageError(`no catalog for ${game}: ${join(catalogDir, `${game}.jsonl`)} does not exist`);
      }
    }
    return [...new Set(requested)] as GameSlug[];
  }
  let names: string[];
  try {
    names = await readdir(catalogDir);
  } catch {
    throw new BuildUsageError(`catalog folder ${catalogDir} does not exist (generate one with \`npm run generate\`)`);
  }
  const found: GameSlug[] = [];
  for (const name of names.filter((n) => n.endsWith('.jsonl')).sort()) {
    const slug = name.slice(0, -'.jsonl'.length);
    if (isGameSlug(slug)) found.push(slug);
    else notice(`skipping ${join(catalogDir, name)}: ${slug} is not a public game (internal games are never published)`);
  }
  if (found.length === 0) throw new BuildUsageError(`no <game>.jsonl files in ${catalogDir}`);
  return GAME_SLUGS.filter((slug) => found.includes(slug));
}

/**
 * Validates every requested game's catalog first (one bad card anywhere and nothing is
 * published), then publishes one new version per game.
 */
export async function build(options: BuildOptions): Promise<BuildResult[]> {
  const notice = options.onNotice ?? (() => {});
  const games = await gamesToBuild(options.catalogDir, options.games ?? [], notice);
  const hitsPerPage = options.hitsPerPage ?? DEFAULT_HITS_PER_PAGE;
  const catalogs = new Map<GameSlug, { entries: CatalogEntry[]; readSeconds: number }>();
  for (const game of games) {
    const started = performance.now();
    const entries = await readCatalog(join(options.catalogDir, `${game}.jsonl`), game, (line) => {
      if (line % 1000 === 0) options.onProgress?.({ game, phase: 'reading', done: line, total: 0 });
    });
    catalogs.set(game, { entries, readSeconds: (performance.now() - started) / 1000 });
  }
  const results: BuildResult[] = [];
  const compressor = createCompressor(undefined, options.inlineCompressionBytes);
  try {
    for (const [game, { entries, readSeconds }] of catalogs) {
      const started = performance.now();
      const published = await publishVersion(options.storage, game, entries, {
        hitsPerPage,
        compressor,
        segmentBytes: options.segmentBytes,
        onProgress: options.onProgress,
        withoutSearchIndex: options.withoutSearchIndex,
      });
      catalogs.delete(game); // let the entries go before the next game
      await recordCatalogCheck(options.storage, game, published.version);
      results.push({ ...published, seconds: readSeconds + (performance.now() - started) / 1000 });
    }
  } finally {
    await compressor.close();
  }
  return results;
}
