import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { joinBodies, splitBodies, type JoinedBodies } from './compress-worker.cjs';

/** Compresses batches of bodies to brotli and gzip on worker threads (one per core). */
export interface Compressor {
  run(bodies: Uint8Array[]): Promise<{ br: Uint8Array[]; gzip: Uint8Array[] }>;
  readonly parallelism: number;
  close(): Promise<void>;
}

/**
 * The pool's task: a CommonJS file, because Piscina require()s a task file before it tries
 * import(), and require() of an ES module (Node >= 20.19) aborted vitest processes (issue 26).
 */
export const COMPRESS_TASK = { filename: new URL('./compress-worker.cjs', import.meta.url).href, name: 'compressBatch' } as const;

export function createCompressor(threads = availableParallelism()): Compressor {
  const pool = new Piscina({
    ...COMPRESS_TASK,
    minThreads: threads,
    maxThreads: threads,
  });
  return {
    parallelism: threads,
    async run(bodies) {
      // One buffer each way per batch (see joinBodies); the bodies come back as views on it.
      const result = (await pool.run(joinBodies(bodies))) as { br: JoinedBodies; gzip: JoinedBodies };
      return { br: splitBodies(result.br), gzip: splitBodies(result.gzip) };
    },
    close: () => pool.destroy(),
  };
}
