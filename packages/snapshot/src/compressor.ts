import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { compressBatch, joinBodies, splitBodies, type JoinedBodies } from './compress-worker.cjs';

/** Compresses batches of bodies to brotli and gzip on worker threads (one per core). */
export interface Compressor {
  run(bodies: Uint8Array[]): Promise<{ br: Uint8Array[]; gzip: Uint8Array[] }>;
  readonly parallelism: number;
  close(): Promise<void>;
}

/**
 * The pool's task: a CommonJS file, because Piscina require()s a task file before it tries
 * import(), and require() of an ES module (Node >= 20.19) aborted vitest processes
 * (test/build-pool.test.ts).
 */
export const COMPRESS_TASK = { filename: new URL('./compress-worker.cjs', import.meta.url).href, name: 'compressBatch' } as const;

/**
 * A batch smaller than this is compressed on the calling thread, and the pool's threads start
 * with the first larger one: starting them costs 0.4-0.8 s (measured: 590 ms to a first answer,
 * ~100 ms to close), most of a small catalog's build (a 20-card catalog took ~0.8 s, most tests
 * and the model suites build hundreds of those), while 256 KiB compress both ways in ~15 ms. The
 * bytes are the same either way (the same compressBatch).
 */
export const INLINE_BATCH_BYTES = 256 * 1024;

export function createCompressor(threads = availableParallelism(), inlineBelow = INLINE_BATCH_BYTES): Compressor {
  let pool: Piscina | undefined;
  return {
    parallelism: threads,
    async run(bodies) {
      // One buffer each way per batch (see joinBodies); the bodies come back as views on it.
      const batch = joinBodies(bodies);
      if (batch.data.length < inlineBelow) {
        const result = compressBatch(batch);
        return { br: splitBodies(result.br), gzip: splitBodies(result.gzip) };
      }
      pool ??= new Piscina({ ...COMPRESS_TASK, minThreads: threads, maxThreads: threads });
      const result = (await pool.run(batch)) as { br: JoinedBodies; gzip: JoinedBodies };
      return { br: splitBodies(result.br), gzip: splitBodies(result.gzip) };
    },
    close: async () => {
      await pool?.destroy();
    },
  };
}
