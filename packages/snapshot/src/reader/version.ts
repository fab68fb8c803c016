import { LRUCache } from 'lru-cache';
import { encodeCursor } from '../cursor/format.ts';
import { PACK_CARDS, PACK_HITS, layout, pagesPack, type Encoding, type Manifest } from '../layout.ts';
import { andThen, type MaybePromise } from '../maybe-promise.ts';
import type { PackEntries, VersionIndex } from '../pack.ts';
import { compressBrotli, compressGzip, contentTag, pageBody, pageTag } from '../render.ts';
import { ObjectNotFoundError, type StorageDriver } from '../storage/driver.ts';
import { VersionGoneError } from './errors.ts';
import type { RangeCache } from './range-cache.ts';

/** Bytes ready to send, with the entity tag of their identity form. */
export interface Body {
  bytes: Uint8Array;
  etag: string;
  encoding: Encoding;
}

/** What a version reads through: the reader's shared range cache and its storage. */
export interface VersionFiles {
  ranges: RangeCache;
  driver: StorageDriver;
  onError?: (error: unknown, context: string) => void;
}

/** One immutable version of one game's snapshot: pages and cards, read through the range cache. */
export class SnapshotVersion {
  readonly game: string;
  readonly version: string;
  readonly totalHits: number;
  /**
   * Set once reading a file showed the version was deleted (VersionGoneError): the reader then
   * treats it as absent (its cursors turn invalid, a game it was current for reads its pointer again).
   */
  gone = false;
  private readonly cursorKey: Buffer;
  private readonly versionTag: string;
  private cardPositions: Map<string, number> | null = null;
  /**
   * Made on the first card asked for: an LRUCache allocates its arrays for `max` entries up front,
   * and most versions (superseded, or only walked) never parse a card. Constructing the reader's
   * and the versions' caches was 6 % of the cards model suite's CPU (a gateway and versions per run).
   */
  private parsedCards: LRUCache<string, Record<string, unknown>> | null = null;

  constructor(private readonly files: VersionFiles, readonly manifest: Manifest, private readonly index: VersionIndex) {
    this.game = manifest.game;
    this.version = manifest.version;
    this.totalHits = manifest.totalHits;
    this.cursorKey = Buffer.from(manifest.cursorKey, 'base64url');
    this.versionTag = contentTag(`${manifest.game}|${manifest.version}`).slice(0, 12);
  }

  pageCount(hitsPerPage: number): number {
    return Math.max(1, Math.ceil(this.totalHits / hitsPerPage));
  }

  /** Entity tag of a page (the same for every encoding of it, before the encoding suffix). */
  pageTag(hitsPerPage: number, page: number): string {
    return pageTag(this.versionTag, hitsPerPage, page);
  }

  /**
   * One page of the walk. Pre-rendered pages come as stored, in the requested encoding; other
   * hitsPerPage values are assembled from the hits pack (a few range reads, no parsing) and
   * compressed once, then cached like any other body.
   */
  page(hitsPerPage: number, page: number, encoding: Encoding): MaybePromise<Body> {
    const etag = this.pageTag(hitsPerPage, page);
    const pages = this.index.pages[String(hitsPerPage)];
    const bytes = pages
      ? this.readEntry(pagesPack(hitsPerPage), encoding, pages.encodings[encoding], page)
      : this.files.ranges.shared(`${this.game}/${this.version}/assembled/${hitsPerPage}/${page}/${encoding}`, async () => {
          const identity = await this.assemblePage(hitsPerPage, page);
          if (encoding === 'br') return compressBrotli(identity);
          if (encoding === 'gzip') return compressGzip(identity);
          return identity;
        });
    return andThen(bytes, (ready) => ({ bytes: ready, etag, encoding }));
  }

  cursorFor(hitsPerPage: number, page: number): string {
    return encodeCursor(this.cursorKey, { game: this.game, hitsPerPage, version: this.version, page });
  }

  /** The stored response body of GET /cards/{id}, or null when the card is not in this version. */
  card(id: string, encoding: Encoding): MaybePromise<Body | null> {
    const i = this.position(id);
    if (i === undefined) return null;
    return andThen(this.readEntry(PACK_CARDS, encoding, this.index.cards.encodings[encoding], i), (bytes) => ({ bytes, etag: this.index.cards.etags[i]!, encoding }));
  }

  /** A card's hit, as the walk serves it (changes/feed.ts), or null when the card is not in this version. */
  hit(id: string): MaybePromise<Uint8Array | null> {
    const i = this.position(id);
    return i === undefined ? null : this.readEntry(PACK_HITS, 'identity', this.index.hits, i);
  }

  /** The card as an object (decks need names, types and images), or null when it is not here. */
  async cardRecord(id: string): Promise<Record<string, unknown> | null> {
    this.parsedCards ??= new LRUCache({ max: 20_000 });
    const cached = this.parsedCards.get(id);
    if (cached) return cached;
    const body = await this.card(id, 'identity');
    if (!body) return null;
    const record = (JSON.parse(Buffer.from(body.bytes).toString('utf8')) as { data: Record<string, unknown> }).data;
    this.parsedCards.set(id, record);
    return record;
  }

  private async assemblePage(hitsPerPage: number, page: number): Promise<Buffer> {
    const from = page * hitsPerPage;
    const to = Math.min(this.totalHits, from + hitsPerPage);
    const hits = this.index.hits;
    // Consecutive hits of one segment are one range read (each hit is stored followed by ',').
    const reads: MaybePromise<Uint8Array>[] = [];
    let i = from;
    while (i < to) {
      const segment = hits.seg[i]!;
      let j = i;
      while (j + 1 < to && hits.seg[j + 1] === segment) j += 1;
      const start = hits.off[i]!;
      const end = hits.off[j]! + hits.len[j]! + 1;
      reads.push(this.read(this.file(PACK_HITS, 'identity', segment), start, end - start));
      i = j + 1;
    }
    const parts = await Promise.all(reads);
    const last = parts.length - 1;
    if (last >= 0) parts[last] = parts[last]!.subarray(0, parts[last]!.length - 1); // drop the final ','
    const next = page + 1 < this.pageCount(hitsPerPage) ? this.cursorFor(hitsPerPage, page + 1) : null;
    return pageBody(parts, next, this.totalHits, this.version);
  }

  private position(id: string): number | undefined {
    if (!this.cardPositions) {
      this.cardPositions = new Map(this.index.cards.ids.map((cardId, i) => [cardId, i]));
    }
    return this.cardPositions.get(id);
  }

  private file(pack: string, encoding: Encoding, segment: number): string {
    return layout.file(this.game, this.version, layout.segment(pack, encoding, segment));
  }

  private readEntry(pack: string, encoding: Encoding, entries: PackEntries, i: number): MaybePromise<Uint8Array> {
    return this.read(this.file(pack, encoding, entries.seg[i]!), entries.off[i]!, entries.len[i]!);
  }

  /** A range of one of this version's files; VersionGoneError when the version was deleted. */
  private read(key: string, offset: number, length: number): MaybePromise<Uint8Array> {
    const bytes = this.files.ranges.read(key, offset, length);
    return bytes instanceof Promise ? bytes.catch((error: unknown) => this.readFailed(error)) : bytes;
  }

  /**
   * Reading a file failed. When the file is missing and so is the manifest (gc deletes it first),
   * the version was deleted: it marks itself gone and throws VersionGoneError. Anything else
   * (storage unreachable, a file alone missing) rethrows.
   */
  private async readFailed(error: unknown): Promise<never> {
    if (!(error instanceof ObjectNotFoundError)) throw error;
    let manifest;
    try {
      manifest = await this.files.driver.head(layout.manifest(this.game, this.version));
    } catch {
      throw error;
    }
    if (manifest) throw error;
    this.gone = true;
    this.files.onError?.(error, `${this.game}/${this.version} is gone from storage: its cursors are now invalid`);
    throw new VersionGoneError(this.game, this.version, { cause: error });
  }
}
