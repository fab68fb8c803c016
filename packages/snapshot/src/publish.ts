import { createHash, randomBytes } from 'node:crypto';
import { encodeCursor } from './cursor.ts';
import type { CatalogEntry } from './catalog.ts';
import {
  DEFAULT_SEGMENT_BYTES, INDEX_FILE, PACK_CARDS, PACK_HITS, layout, pagesPack,
  type Encoding, type Manifest, type Pointer,
} from './layout.ts';
import { PackWriter, encodeIndex, type PackEntries, type PagesIndex, type VersionIndex } from './pack.ts';
import { cardBody, compressBrotli, compressGzip, contentTag, pageBody } from './render.ts';
import type { StorageDriver } from './storage/driver.ts';

export interface PublishProgress {
  game: string;
  phase: 'cards' | 'hits' | 'pages' | 'finishing';
  done: number;
  total: number;
}

export interface PublishOptions {
  hitsPerPage: readonly number[];
  segmentBytes?: number;
  onProgress?: (progress: PublishProgress) => void;
  /** For tests: called after each file is written, so a build can be interrupted at a known point. */
  afterWrite?: (key: string) => Promise<void> | void;
}

export interface PublishResult {
  game: string;
  version: string;
  totalHits: number;
  files: number;
  bytes: number;
}

/** Compressions run this many at a time: zlib's async calls spread them over the thread pool. */
const COMPRESS_WINDOW = 64;
/** At most this many segment uploads in flight per version: bounds memory and connections. */
const WRITES_IN_FLIGHT = 4;

export function newVersionId(now = new Date()): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
}

/**
 * Writes one immutable version of one game's snapshot and then, only then, points the game's
 * `current.json` at it. Readers following the old pointer keep working throughout.
 */
export async function publishVersion(driver: StorageDriver, game: string, entries: CatalogEntry[], options: PublishOptions): Promise<PublishResult> {
  const version = newVersionId();
  const cursorKey = randomBytes(32);
  const files: Manifest['files'] = {};
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  let bytes = 0;

  const writeFile = async (name: string, body: Uint8Array) => {
    const key = layout.file(game, version, name);
    files[name] = { size: body.length, sha256: createHash('sha256').update(body).digest('hex') };
    bytes += body.length;
    await driver.put(key, body);
    await options.afterWrite?.(key);
  };
  // Segment uploads overlap with compression; `drain` waits when too many are pending.
  const queueWrite = async (name: string, body: Uint8Array) => {
    while (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
    if (failure !== undefined) throw failure;
    const write: Promise<void> = writeFile(name, body)
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => inFlight.delete(write));
    inFlight.add(write);
  };
  const writers = (pack: string): Record<Encoding, PackWriter> => ({
    identity: new PackWriter((segment, body) => queueWrite(layout.segment(pack, 'identity', segment), body), segmentBytes),
    br: new PackWriter((segment, body) => queueWrite(layout.segment(pack, 'br', segment), body), segmentBytes),
    gzip: new PackWriter((segment, body) => queueWrite(layout.segment(pack, 'gzip', segment), body), segmentBytes),
  });
  const finishAll = async (packWriters: Record<Encoding, PackWriter>): Promise<Record<Encoding, PackEntries>> => ({
    identity: await packWriters.identity.finish(),
    br: await packWriters.br.finish(),
    gzip: await packWriters.gzip.finish(),
  });
  /** Renders bodies in windows, compressing each window concurrently, and appends them in order. */
  const addCompressed = async (packWriters: Record<Encoding, PackWriter>, count: number, render: (i: number) => Buffer, onDone: (done: number) => void) => {
    for (let start = 0; start < count; start += COMPRESS_WINDOW) {
      const end = Math.min(count, start + COMPRESS_WINDOW);
      const bodies: Buffer[] = [];
      for (let i = start; i < end; i++) bodies.push(render(i));
      const [brs, gzips] = await Promise.all([Promise.all(bodies.map(compressBrotli)), Promise.all(bodies.map(compressGzip))]);
      for (let i = 0; i < bodies.length; i++) {
        await packWriters.identity.add(bodies[i]!);
        await packWriters.br.add(brs[i]!);
        await packWriters.gzip.add(gzips[i]!);
      }
      onDone(end);
    }
  };
  const progress = (phase: PublishProgress['phase'], done: number, total: number) => options.onProgress?.({ game, phase, done, total });

  // 1. Cards, for lookups: the exact response body of GET /cards/{id}, in three encodings.
  const cardWriters = writers(PACK_CARDS);
  const etags: string[] = new Array(entries.length);
  await addCompressed(cardWriters, entries.length, (i) => {
    const body = cardBody(entries[i]!.card);
    etags[i] = contentTag(body);
    return body;
  }, (done) => progress('cards', done, entries.length));
  const cardEntries = await finishAll(cardWriters);

  // 2. Hits, each followed by ',', from which any hitsPerPage is assembled without parsing.
  const hitWriter = new PackWriter((segment, body) => queueWrite(layout.segment(PACK_HITS, 'identity', segment), body), segmentBytes, Buffer.from(','));
  const hitBytes = entries.map((entry) => Buffer.from(entry.hit));
  for (const hit of hitBytes) await hitWriter.add(hit);
  const hitEntries = await hitWriter.finish();
  progress('hits', entries.length, entries.length);

  // 3. Pre-rendered pages for each configured hitsPerPage, with the next cursor baked in.
  const pages: Record<string, PagesIndex> = {};
  const comma = Buffer.from(',');
  const totalPages = options.hitsPerPage.reduce((sum, hpp) => sum + Math.max(1, Math.ceil(entries.length / hpp)), 0);
  let pagesDone = 0;
  for (const hitsPerPage of options.hitsPerPage) {
    const count = Math.max(1, Math.ceil(entries.length / hitsPerPage));
    const pageWriters = writers(pagesPack(hitsPerPage));
    await addCompressed(pageWriters, count, (page) => {
      const from = page * hitsPerPage;
      const to = Math.min(entries.length, from + hitsPerPage);
      const parts: Buffer[] = [];
      for (let i = from; i < to; i++) {
        if (i > from) parts.push(comma);
        parts.push(hitBytes[i]!);
      }
      const next = page + 1 < count ? encodeCursor(cursorKey, { game, hitsPerPage, version, page: page + 1 }) : null;
      return pageBody(parts, next, entries.length);
    }, (done) => progress('pages', pagesDone + done, totalPages));
    pagesDone += count;
    pages[String(hitsPerPage)] = { count, encodings: await finishAll(pageWriters) };
  }

  // 4. Index, then manifest, then (once everything is in storage) the pointer.
  progress('finishing', 0, 1);
  const index: VersionIndex = { cards: { ids: entries.map((e) => e.id), etags, encodings: cardEntries }, hits: hitEntries, pages };
  await Promise.all(inFlight);
  if (failure !== undefined) throw failure;
  await writeFile(INDEX_FILE, encodeIndex(index));
  const manifest: Manifest = {
    format: 1,
    game,
    version,
    createdAt: new Date().toISOString(),
    totalHits: entries.length,
    hitsPerPage: [...options.hitsPerPage],
    cursorKey: cursorKey.toString('base64url'),
    files,
  };
  const manifestKey = layout.manifest(game, version);
  await driver.put(manifestKey, Buffer.from(JSON.stringify(manifest, null, 1)), { contentType: 'application/json' });
  await options.afterWrite?.(manifestKey);
  const pointer: Pointer = { version, publishedAt: new Date().toISOString() };
  await driver.put(layout.pointer(game), Buffer.from(JSON.stringify(pointer)), { contentType: 'application/json' });
  await options.afterWrite?.(layout.pointer(game));
  progress('finishing', 1, 1);
  return { game, version, totalHits: entries.length, files: Object.keys(files).length + 1, bytes };
}

