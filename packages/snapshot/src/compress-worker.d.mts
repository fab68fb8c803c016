import type { BrotliOptions, ZlibOptions } from 'node:zlib';

export declare function brotliOptions(size: number): BrotliOptions;
export declare const GZIP_OPTIONS: ZlibOptions;
export default function compressBatch(bodies: Uint8Array[]): { br: Uint8Array[]; gzip: Uint8Array[] };
