import { SEARCH_ENGINE, SEARCH_FIELDS, type GameSlug } from '@snapdeck/contract';
import type { CatalogEntry } from '../catalog.ts';
import type { Compressor } from '../compressor.ts';
import { PACK_SEARCH, SEARCH_TABLE_FILE, layout, type Encoding } from '../layout.ts';
import { PackWriter } from '../pack.ts';
import { contentTag } from '../render.ts';
import type { VersionWriter } from '../publish/version-writer.ts';
import { buildSearchFiles } from './engine.ts';
import { encodeSearchTable, type SearchTableFile } from './table.ts';

export interface SearchWriteOptions {
  segmentBytes: number;
  compressor: Compressor;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Builds the version's search index from exactly its entries and stores it like pages are: every
 * file of the engine packed back to back into the `search` pack (identity, plus brotli and gzip
 * for text files), and `search.bin` naming where each file is. However many files the engine
 * writes, the version gains a handful of objects; the manifest lists them, so they are verified
 * before the pointer moves and deleted by gc with the version.
 */
export async function writeSearchIndex(writer: VersionWriter, game: GameSlug, entries: readonly CatalogEntry[], options: SearchWriteOptions): Promise<void> {
  const files = await buildSearchFiles(game, entries, (done) => options.onProgress?.(done, entries.length));
  const packs = Object.fromEntries((['identity', 'br', 'gzip'] as const).map((encoding) => [
    encoding,
    new PackWriter((segment, body) => writer.queueFile(layout.segment(PACK_SEARCH, encoding, segment), body), options.segmentBytes),
  ])) as Record<Encoding, PackWriter>;
  const text = files.filter((file) => file.text);
  const compressed = text.length > 0 ? await options.compressor.run(text.map((file) => file.body)) : { br: [], gzip: [] };
  const textForms = new Map(text.map((file, i) => [file.path, { br: compressed.br[i]!, gzip: compressed.gzip[i]! }]));
  const counts: Record<Encoding, number> = { identity: 0, br: 0, gzip: 0 };
  /** Appends a body to a pack; returns its entry number there (segment and offset are known once the pack is finished). */
  const place = async (encoding: Encoding, body: Uint8Array): Promise<number> => {
    await packs[encoding].add(body);
    return counts[encoding]++;
  };
  const pending: Array<{ file: SearchTableFile; order: Partial<Record<Encoding, number>> }> = [];
  for (const file of files) {
    const order: Partial<Record<Encoding, number>> = { identity: await place('identity', file.body) };
    const forms = textForms.get(file.path);
    if (forms) {
      order.br = await place('br', forms.br);
      order.gzip = await place('gzip', forms.gzip);
    }
    pending.push({ file: { path: file.path, etag: contentTag(file.body), forms: { identity: [0, 0, 0] } }, order });
  }
  const finished = {
    identity: await packs.identity.finish(),
    br: await packs.br.finish(),
    gzip: await packs.gzip.finish(),
  };
  for (const { file, order } of pending) {
    for (const [encoding, i] of Object.entries(order) as Array<[Encoding, number]>) {
      const entries = finished[encoding];
      file.forms[encoding] = [entries.seg[i]!, entries.off[i]!, entries.len[i]!];
    }
  }
  await writer.writeFile(SEARCH_TABLE_FILE, encodeSearchTable({
    engine: SEARCH_ENGINE.name,
    engineVersion: SEARCH_ENGINE.version,
    facets: [...SEARCH_FIELDS[game].facets],
    totalHits: entries.length,
    files: pending.map((p) => p.file),
  }));
}
