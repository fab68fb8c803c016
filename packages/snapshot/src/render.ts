import { createHash } from 'node:crypto';
import { brotliCompress, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { GZIP_OPTIONS, brotliOptions } from './compress-worker.cjs';

/**
 * The exact bytes of responses that come out of a snapshot. The builder pre-renders with these and
 * the gateway assembles non-pre-rendered pages with the same functions, so both give equal bytes.
 */
const PAGE_HEAD = Buffer.from('{"data":{"hits":[');

/** `indexVersion`: the version the page belongs to (decisions.md "Card changes": a sync checkpoint). */
export function pageTail(cursor: string | null, totalHits: number, indexVersion: string): Buffer {
  return Buffer.from(`],"cursor":${cursor === null ? 'null' : JSON.stringify(cursor)},"totalHits":${totalHits},"indexVersion":${JSON.stringify(indexVersion)}}}`);
}

/** A page from its hit bodies, already joined by commas. */
export function pageBody(joinedHits: Uint8Array[], cursor: string | null, totalHits: number, indexVersion: string): Buffer {
  return Buffer.concat([PAGE_HEAD, ...joinedHits, pageTail(cursor, totalHits, indexVersion)]);
}

const CARD_HEAD = Buffer.from('{"data":');
const CARD_TAIL = Buffer.from('}');

export function cardBody(cardJson: Uint8Array): Buffer {
  return Buffer.concat([CARD_HEAD, cardJson, CARD_TAIL]);
}

/** Strong entity tag value (without quotes) of bytes. */
export function contentTag(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('base64url').slice(0, 22);
}

/**
 * Pages are immutable per (game, version, hitsPerPage, page), so their tag follows from those:
 * a per-version prefix (hashed once) plus the page's coordinates, with no hashing per request.
 */
export function pageTag(versionTag: string, hitsPerPage: number, page: number): string {
  return `${versionTag}.${hitsPerPage}.${page}`;
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** On-the-fly compression (pages of a hitsPerPage that was not pre-rendered), same settings as the build. */
export function compressGzip(body: Uint8Array): Promise<Buffer> {
  return gzipAsync(body, GZIP_OPTIONS);
}

export function compressBrotli(body: Uint8Array): Promise<Buffer> {
  return brotliAsync(body, brotliOptions(body.length));
}
