import type { BrotliOptions, ZlibOptions } from 'node:zlib';

export declare function brotliOptions(size: number): BrotliOptions;
export declare const GZIP_OPTIONS: ZlibOptions;
export interface JoinedBodies {
  data: Uint8Array;
  lengths: number[];
}
export declare function joinBodies(bodies: Uint8Array[]): JoinedBodies;
export declare function splitBodies(batch: JoinedBodies): Uint8Array[];
export declare function compressBatch(batch: JoinedBodies): { br: JoinedBodies; gzip: JoinedBodies };
