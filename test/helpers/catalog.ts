import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GameSlug } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { generateCatalog } from '../../scripts/generate-catalog.ts';

/** Writes `<dir>/<game>.jsonl` from generated cards; returns the cards written. */
export async function writeGeneratedCatalog(dir: string, counts: Partial<Record<GameSlug, number>>, seed = 7): Promise<Record<string, Array<Record<string, unknown> & { id: string }>>> {
  await mkdir(dir, { recursive: true });
  const out: Record<string, Array<Record<string, unknown> & { id: string }>> = {};
  for (const [game, count] of Object.entries(counts) as [GameSlug, number][]) {
    const cards = [...generateCatalog({ game, count, seed })] as Array<Record<string, unknown> & { id: string }>;
    await writeFile(join(dir, `${game}.jsonl`), cards.map((card) => JSON.stringify(card)).join('\n') + '\n');
    out[game] = cards;
  }
  return out;
}

/**
 * A generated catalog in `<dir>/catalog`, built into snapshots in `<dir>/snapshots` (hitsPerPage
 * 100 pre-rendered): the card side of a test about the store, the cache or the gateways. Returns
 * the snapshots folder.
 */
export async function buildGeneratedSnapshots(dir: string, counts: Partial<Record<GameSlug, number>>): Promise<string> {
  const catalogDir = join(dir, 'catalog');
  const snapshots = join(dir, 'snapshots');
  await writeGeneratedCatalog(catalogDir, counts);
  await build({ catalogDir, storage: new FsDriver(snapshots), hitsPerPage: [100] });
  return snapshots;
}
