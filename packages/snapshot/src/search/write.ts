import { readFile } from 'node:fs/promises';
import { SEARCH_ENGINE, SEARCH_FIELDS, type GameSlug } from '@snapdeck/contract';
import type { CatalogEntry } from '../catalog.ts';
import type { Compressor } from '../compressor.ts';
import { PACK_SEARCH, SEARCH_TABLE_FILE, layout, type Encoding } from '../layout.ts';
import { PackWriter } from '../pack.ts';
import { contentTag } from '../render.ts';
import type { VersionWriter } from '../publish/version-writer.ts';
import { buildSearchFiles, type SearchFile } from './engine.ts';
import { encodeSearchTable, type SearchTableFile } from './table.ts';

export interface SearchWriteOptions {
  segmentBytes: number;
  compressor: Compressor;
  onProgress?: (done: number, total: number) => void;
}

/** A search index being built (by Pagefind's own process) while the rest of the version is written. */
export interface PendingSearchIndex {
  /** Waits for the index and packs it into the version. */
  write(writer: VersionWriter): Promise<void>;
  /** The version is not written after all: waits for the index and throws it away. */
  abandon(): Promise<void>;
}

/**
 * Starts building the version's search index from exactly its entries. The engine indexes in its
 * own process, so a build starts this before writing the pages and packs it afterwards: the two
 * run side by side instead of one after the other. It is stored like pages are: every file of the
 * engine packed back to back into the `search` pack (identity, plus brotli and gzip for text
 * files), and `search.bin` naming where each file is. However many files the engine writes, the
 * version gains a handful of objects; the manifest lists them, so they are verified before the
 * pointer moves and deleted by gc with the version.
 */
export function startSearchIndex(game: GameSlug, entries: readonly CatalogEntry[], options: SearchWriteOptions): PendingSearchIndex {
  const built = buildSearchFiles(game, entries, (done) => options.onProgress?.(done, entries.length));
  built.catch(() => undefined); // reported by write(), or dropped by abandon()
  return {
    async write(writer) {
      const files = await built;
      try {
        await packSearchFiles(writer, game, entries.length, files.files, options);
      } finally {
        await files.dispose();
      }
    },
    abandon: () => built.then((files) => files.dispose(), () => undefined),
  };
}

/** The bytes of a file of the index (read from the engine's folder when it is there). */
const bytesOf = async (file: SearchFile): Promise<Uint8Array> => ('file' in file.body ? readFile(file.body.file) : file.body);

/** Packs the files one by one (only the few text files are held together, to compress them). */
async function packSearchFiles(writer: VersionWriter, game: GameSlug, totalHits: number, files: readonly SearchFile[], options: SearchWriteOptions): Promise<void> {
  const packs = Object.fromEntries((['identity', 'br', 'gzip'] as const).map((encoding) => [
    encoding,
    new PackWriter((segment, body) => writer.queueFile(layout.segment(PACK_SEARCH, encoding, segment), body), options.segmentBytes),
  ])) as Record<Encoding, PackWriter>;
  const text = files.filter((file) => file.text);
  const textBodies = await Promise.all(text.map(bytesOf));
  const compressed = text.length > 0 ? await options.compressor.run(textBodies) : { br: [], gzip: [] };
  const textForms = new Map(text.map((file, i) => [file.path, { body: textBodies[i]!, br: compressed.br[i]!, gzip: compressed.gzip[i]! }]));
  const counts: Record<Encoding, number> = { identity: 0, br: 0, gzip: 0 };
  /** Appends a body to a pack; returns its entry number there (segment and offset are known once the pack is finished). */
  const place = async (encoding: Encoding, body: Uint8Array): Promise<number> => {
    await packs[encoding].add(body);
    return counts[encoding]++;
  };
  const pending: Array<{ file: SearchTableFile; order: Partial<Record<Encoding, number>> }> = [];
  for (const file of files) {
    const forms = textForms.get(file.path);
    const body = forms?.body ?? (await bytesOf(file));
    const order: Partial<Record<Encoding, number>> = { identity: await place('identity', body) };
    if (forms) {
      order.br = await place('br', forms.br);
      order.gzip = await place('gzip', forms.gzip);
    }
    pending.push({ file: { path: file.path, etag: contentTag(body), forms: { identity: [0, 0, 0] } }, order });
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
    totalHits,
    files: pending.map((p) => p.file),
  }));
}
