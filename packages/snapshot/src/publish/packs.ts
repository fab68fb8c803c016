import type { CatalogEntry } from '../catalog.ts';
import type { Compressor } from '../compressor.ts';
import { encodeCursor } from '../cursor/format.ts';
import { PACK_CARDS, PACK_HITS, layout, pagesPack, type Encoding } from '../layout.ts';
import { PackWriter, type PackEntries, type PagesIndex, type VersionIndex } from '../pack.ts';
import { cardBody, contentTag, pageBody } from '../render.ts';
import type { VersionWriter } from './version-writer.ts';

export interface PackProgress {
  phase: 'cards' | 'hits' | 'pages';
  done: number;
  total: number;
}

export interface PackOptions {
  hitsPerPage: readonly number[];
  segmentBytes: number;
  /** Worker pool for brotli and gzip. */
  compressor: Compressor;
  /** Signs the next-page cursors baked into pre-rendered pages. */
  cursorKey: Uint8Array;
  onProgress?: (progress: PackProgress) => void;
}

/** A compression batch closes at this many bodies or bytes, whichever comes first. */
const BATCH_ENTRIES = 256;
const BATCH_BYTES = 2 * 1024 * 1024;
const COMMA = Buffer.from(',');

/**
 * Renders and queues every pack of a version (cards, hits, pre-rendered pages) through `writer`,
 * and returns the index of where each entry landed. Segments are queued as they fill; the caller
 * drains the writer.
 */
export async function writePacks(writer: VersionWriter, entries: readonly CatalogEntry[], options: PackOptions): Promise<VersionIndex> {
  const cards = await writeCardPack(writer, entries, options);
  const hits = await writeHitPack(writer, entries, options);
  const pages = await writePagePacks(writer, entries, options);
  return { cards: { ids: entries.map((e) => e.id), etags: cards.etags, encodings: cards.encodings }, hits, pages };
}

/** Cards, for lookups: the exact response body of GET /cards/{id}, in three encodings. */
export async function writeCardPack(writer: VersionWriter, entries: readonly CatalogEntry[], options: PackOptions): Promise<{ etags: string[]; encodings: Record<Encoding, PackEntries> }> {
  const etags: string[] = new Array(entries.length);
  const encodings = await writeCompressedPack(writer, PACK_CARDS, entries.length, (i) => {
    const body = cardBody(entries[i]!.card);
    etags[i] = contentTag(body);
    return body;
  }, options, (done) => options.onProgress?.({ phase: 'cards', done, total: entries.length }));
  return { etags, encodings };
}

/** Hits, each followed by ',', from which any hitsPerPage is assembled without parsing. */
export async function writeHitPack(writer: VersionWriter, entries: readonly CatalogEntry[], options: PackOptions): Promise<PackEntries> {
  const pack = new PackWriter((segment, body) => writer.queueFile(layout.segment(PACK_HITS, 'identity', segment), body), options.segmentBytes, COMMA);
  for (const entry of entries) await pack.add(entry.hit);
  const hits = await pack.finish();
  options.onProgress?.({ phase: 'hits', done: entries.length, total: entries.length });
  return hits;
}

/** Pre-rendered pages for each configured hitsPerPage, with the next cursor baked in. */
export async function writePagePacks(writer: VersionWriter, entries: readonly CatalogEntry[], options: PackOptions): Promise<Record<string, PagesIndex>> {
  const { game, version } = writer;
  const pages: Record<string, PagesIndex> = {};
  const totalPages = options.hitsPerPage.reduce((sum, hpp) => sum + Math.max(1, Math.ceil(entries.length / hpp)), 0);
  let pagesDone = 0;
  for (const hitsPerPage of options.hitsPerPage) {
    const count = Math.max(1, Math.ceil(entries.length / hitsPerPage));
    const encodings = await writeCompressedPack(writer, pagesPack(hitsPerPage), count, (page) => {
      const from = page * hitsPerPage;
      const to = Math.min(entries.length, from + hitsPerPage);
      const parts: Buffer[] = [];
      for (let i = from; i < to; i++) {
        if (i > from) parts.push(COMMA);
        parts.push(entries[i]!.hit);
      }
      const next = page + 1 < count ? encodeCursor(options.cursorKey, { game, hitsPerPage, version, page: page + 1 }) : null;
      return pageBody(parts, next, entries.length, version);
    }, options, (done) => options.onProgress?.({ phase: 'pages', done: pagesDone + done, total: totalPages }));
    pagesDone += count;
    pages[String(hitsPerPage)] = { count, encodings };
  }
  return pages;
}

/**
 * One pack in three encodings: renders bodies in batches and compresses them on worker threads,
 * keeping a few batches in flight so rendering, compressing and uploading overlap; appends the
 * results in order.
 */
async function writeCompressedPack(
  writer: VersionWriter, pack: string, count: number, render: (i: number) => Buffer, options: PackOptions, onDone: (done: number) => void,
): Promise<Record<Encoding, PackEntries>> {
  const packs = {
    identity: new PackWriter((segment, body) => writer.queueFile(layout.segment(pack, 'identity', segment), body), options.segmentBytes),
    br: new PackWriter((segment, body) => writer.queueFile(layout.segment(pack, 'br', segment), body), options.segmentBytes),
    gzip: new PackWriter((segment, body) => writer.queueFile(layout.segment(pack, 'gzip', segment), body), options.segmentBytes),
  };
  const { compressor } = options;
  const inProgress: Array<Promise<{ bodies: Buffer[]; br: Uint8Array[]; gzip: Uint8Array[]; end: number }>> = [];
  const appendOldest = async () => {
    const batch = await inProgress.shift()!;
    for (let i = 0; i < batch.bodies.length; i++) {
      await packs.identity.add(batch.bodies[i]!);
      await packs.br.add(batch.br[i]!);
      await packs.gzip.add(batch.gzip[i]!);
    }
    onDone(batch.end);
  };
  let i = 0;
  while (i < count) {
    const bodies: Buffer[] = [];
    let bytesInBatch = 0;
    while (i < count && bodies.length < BATCH_ENTRIES && bytesInBatch < BATCH_BYTES) {
      const body = render(i++);
      bodies.push(body);
      bytesInBatch += body.length;
    }
    const end = i;
    inProgress.push(compressor.run(bodies).then((compressed) => ({ bodies, ...compressed, end })));
    if (inProgress.length >= compressor.parallelism * 2) await appendOldest();
  }
  while (inProgress.length > 0) await appendOldest();
  return { identity: await packs.identity.finish(), br: await packs.br.finish(), gzip: await packs.gzip.finish() };
}
