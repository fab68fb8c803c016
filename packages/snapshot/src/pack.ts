import { pack as msgpack, unpack as msgunpack } from 'msgpackr';
import type { Encoding } from './layout.ts';

/** Where every entry of one pack/encoding lives: segment number, offset in it, length. */
export interface PackEntries {
  seg: Uint32Array;
  off: Uint32Array;
  len: Uint32Array;
}

export interface PagesIndex {
  count: number;
  encodings: Record<Encoding, PackEntries>;
}

/** The binary index of a version: every offset the gateway needs, nothing it must parse per request. */
export interface VersionIndex {
  cards: { ids: string[]; etags: string[]; encodings: Record<Encoding, PackEntries> };
  /** Hit bodies, each followed by one ',' byte that `len` does not count. Identity only. */
  hits: PackEntries;
  pages: Record<string, PagesIndex>;
}

type Wire = Record<string, unknown>;

function entriesToWire(entries: PackEntries): Wire {
  const bytes = (array: Uint32Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  return { seg: bytes(entries.seg), off: bytes(entries.off), len: bytes(entries.len) };
}

function entriesFromWire(wire: Wire): PackEntries {
  // Copy into fresh, aligned buffers: msgpack hands back views into the file's bytes.
  const u32 = (value: unknown) => {
    const source = value as Uint8Array;
    const copy = new Uint8Array(source.byteLength);
    copy.set(source);
    return new Uint32Array(copy.buffer);
  };
  return { seg: u32(wire.seg), off: u32(wire.off), len: u32(wire.len) };
}

function mapEncodings<A, B>(encodings: Record<Encoding, A>, fn: (value: A) => B): Record<Encoding, B> {
  return { identity: fn(encodings.identity), br: fn(encodings.br), gzip: fn(encodings.gzip) };
}

export function encodeIndex(index: VersionIndex): Uint8Array {
  return msgpack({
    v: 1,
    cards: { ids: index.cards.ids, etags: index.cards.etags, encodings: mapEncodings(index.cards.encodings, entriesToWire) },
    hits: entriesToWire(index.hits),
    pages: Object.fromEntries(
      Object.entries(index.pages).map(([hpp, pages]) => [hpp, { count: pages.count, encodings: mapEncodings(pages.encodings, entriesToWire) }]),
    ),
  });
}

export function decodeIndex(bytes: Uint8Array): VersionIndex {
  const wire = msgunpack(bytes) as {
    v: number;
    cards: { ids: string[]; etags: string[]; encodings: Record<Encoding, Wire> };
    hits: Wire;
    pages: Record<string, { count: number; encodings: Record<Encoding, Wire> }>;
  };
  if (wire.v !== 1) throw new Error(`unsupported index format ${wire.v}`);
  return {
    cards: { ids: wire.cards.ids, etags: wire.cards.etags, encodings: mapEncodings(wire.cards.encodings, entriesFromWire) },
    hits: entriesFromWire(wire.hits),
    pages: Object.fromEntries(
      Object.entries(wire.pages).map(([hpp, pages]) => [hpp, { count: pages.count, encodings: mapEncodings(pages.encodings, entriesFromWire) }]),
    ),
  };
}

/**
 * Appends entries to segments of at most `segmentBytes` (an entry never spans two segments, so
 * any entry is one range read) and hands each full segment to `flush`.
 */
export class PackWriter {
  private readonly seg: number[] = [];
  private readonly off: number[] = [];
  private readonly len: number[] = [];
  private chunks: Uint8Array[] = [];
  private size = 0;
  private segment = 0;

  constructor(
    private readonly flush: (segment: number, body: Uint8Array) => Promise<void>,
    private readonly segmentBytes: number,
    /** Bytes written after each entry but not counted in its length (the ',' of the hits pack). */
    private readonly trailer?: Uint8Array,
  ) {}

  async add(entry: Uint8Array): Promise<void> {
    const total = entry.length + (this.trailer?.length ?? 0);
    if (this.size > 0 && this.size + total > this.segmentBytes) await this.rollOver();
    this.seg.push(this.segment);
    this.off.push(this.size);
    this.len.push(entry.length);
    this.chunks.push(entry);
    if (this.trailer) this.chunks.push(this.trailer);
    this.size += total;
  }

  private async rollOver(): Promise<void> {
    const body = Buffer.concat(this.chunks, this.size);
    const segment = this.segment;
    this.chunks = [];
    this.size = 0;
    this.segment += 1;
    await this.flush(segment, body);
  }

  async finish(): Promise<PackEntries> {
    if (this.size > 0 || this.segment === 0) await this.rollOver();
    return { seg: Uint32Array.from(this.seg), off: Uint32Array.from(this.off), len: Uint32Array.from(this.len) };
  }
}
