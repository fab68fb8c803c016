import { pack as msgpack, unpack as msgunpack } from 'msgpackr';
import type { SearchFacet } from '@snapdeck/contract';
import type { Encoding } from '../layout.ts';

/** Where one stored form of a file is: segment of the search pack, offset, length. */
export type PackedAt = [segment: number, offset: number, length: number];

/** One file of a search index: its path below the base URL, entity tag, and stored forms. */
export interface SearchTableFile {
  path: string;
  etag: string;
  /** Identity always; brotli and gzip for text files only. */
  forms: Partial<Record<Encoding, PackedAt>> & { identity: PackedAt };
}

/** `search.bin`: what a version's search index is and where each of its files is packed. */
export interface SearchTable {
  engine: string;
  engineVersion: string;
  facets: SearchFacet[];
  totalHits: number;
  files: SearchTableFile[];
}

const FORMAT = 1;

export function encodeSearchTable(table: SearchTable): Uint8Array {
  return msgpack({
    v: FORMAT, engine: table.engine, engineVersion: table.engineVersion, facets: table.facets, totalHits: table.totalHits,
    files: table.files.map((f) => [f.path, f.etag, f.forms.identity, f.forms.br ?? null, f.forms.gzip ?? null]),
  });
}

export function decodeSearchTable(bytes: Uint8Array): SearchTable {
  const wire = msgunpack(bytes) as Omit<SearchTable, 'files'> & { v: number; files: Array<[string, string, PackedAt, PackedAt | null, PackedAt | null]> };
  if (wire.v !== FORMAT) throw new Error(`unsupported search table format ${wire.v}`);
  return {
    engine: wire.engine, engineVersion: wire.engineVersion, facets: wire.facets, totalHits: wire.totalHits,
    files: wire.files.map(([path, etag, identity, br, gzip]) => ({ path, etag, forms: { identity, ...(br ? { br } : {}), ...(gzip ? { gzip } : {}) } })),
  };
}
