import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';

/** Compresses batches of bodies to brotli and gzip on worker threads (one per core). */
export interface Compressor {
  run(bodies: Uint8Array[]): Promise<{ br: Uint8Array[]; gzip: Uint8Array[] }>;
  readonly parallelism: number;
  close(): Promise<void>;
}

export function createCompressor(threads = availableParallelism()): Compressor {
  const pool = new Piscina({
    filename: new URL('./compress-worker.mjs', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
  });
  return {
    parallelism: threads,
    run: (bodies) => pool.run(bodies) as Promise<{ br: Uint8Array[]; gzip: Uint8Array[] }>,
    close: () => pool.destroy(),
  };
}
