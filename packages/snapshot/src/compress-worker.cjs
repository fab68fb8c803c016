// Compression settings, and the worker that applies them (plain JS: worker threads load it
// without the TypeScript loader). Synchronous zlib inside a worker beats zlib's async API for many
// small bodies: one thread hop per batch instead of one per body.
// CommonJS on purpose: Piscina loads a task file with require() first, and require() of an ES
// module (Node >= 20.19 and 22.12) aborted test processes that had built many versions under
// vitest (test/build-pool.test.ts). The main thread imports the same helpers from here (ESM
// imports CommonJS).
'use strict';
const { brotliCompressSync, constants, gzipSync } = require('node:zlib');

/** Brotli with its window sized to the body: a 4 MiB window for a 1 KiB body is pure set-up cost. */
function brotliOptions(size) {
  return {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: 6,
      [constants.BROTLI_PARAM_LGWIN]: Math.min(24, Math.max(10, Math.ceil(Math.log2(size + 1)))),
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  };
}

const GZIP_OPTIONS = { level: 6 };

/**
 * Bytes of several bodies in one exact-size buffer, plus their lengths. Crossing threads, a typed
 * array is copied with its whole backing store: zlib's small outputs are slices of shared 8 KiB
 * slabs, so sending them one by one would copy (and keep) a slab for every body.
 */
function joinBodies(bodies) {
  const lengths = bodies.map((body) => body.length);
  const data = new Uint8Array(lengths.reduce((sum, n) => sum + n, 0));
  let offset = 0;
  for (const body of bodies) {
    data.set(body, offset);
    offset += body.length;
  }
  return { data, lengths };
}

/** The bodies of a joined batch, as views on its buffer. */
function splitBodies({ data, lengths }) {
  const bodies = [];
  let offset = 0;
  for (const length of lengths) {
    bodies.push(data.subarray(offset, offset + length));
    offset += length;
  }
  return bodies;
}

/** Piscina task: compresses a joined batch of bodies both ways; answers two joined batches. */
function compressBatch(batch) {
  const bodies = splitBodies(batch);
  return {
    br: joinBodies(bodies.map((body) => brotliCompressSync(body, brotliOptions(body.length)))),
    gzip: joinBodies(bodies.map((body) => gzipSync(body, GZIP_OPTIONS))),
  };
}

// Assigned one by one so that Node's CommonJS export detection gives ES importers named exports.
exports.brotliOptions = brotliOptions;
exports.GZIP_OPTIONS = GZIP_OPTIONS;
exports.joinBodies = joinBodies;
exports.splitBodies = splitBodies;
// The pool's task (compressor.ts names it: Piscina's `name` option).
exports.compressBatch = compressBatch;
