import type { StoreManifest } from './layout.ts';

/**
 * How store versions are ordered (decisions.md: "versions only move forward").
 *
 * Every manifest carries `sequence`, one more than the highest sequence its writer had published
 * or seen (publish.ts), and `storeId`, drawn at random by the first publish of a store and kept by
 * every later one (restore carries it to a new writer). Clocks play no part: a writer whose clock
 * is behind still numbers its next version above the last. A version is:
 * - newer: same store, higher sequence (or: the served one predates sequences);
 * - older: same store, lower sequence (or it predates sequences while the served one does not);
 * - unrelated: another store (a different storeId), or another version with the same sequence
 *   (a fork: two writers, or a forged manifest).
 * Manifests written before sequences existed (no `sequence`, no `storeId`) are ordered between
 * themselves by their version ids, which a writer always makes later than the version it
 * published on top of (versionIdAfter); a sequenced manifest is newer than any of them.
 */
export interface StorePosition {
  version: string;
  /** null: a manifest from before sequences. */
  sequence: number | null;
  storeId: string | null;
}

export type StoreOrder = 'same' | 'newer' | 'older' | 'unrelated';

export function positionOf(manifest: StoreManifest): StorePosition {
  return { version: manifest.version, sequence: manifest.sequence ?? null, storeId: manifest.storeId ?? null };
}

/** Where `next` stands relative to `served` (null: nothing served yet, so anything is newer). */
export function orderOf(served: StorePosition | null, next: StorePosition): StoreOrder {
  if (served === null) return 'newer';
  if (next.version === served.version) return 'same';
  if (served.storeId !== null && next.storeId !== null && served.storeId !== next.storeId) return 'unrelated';
  if (served.sequence === null) {
    if (next.sequence !== null) return 'newer';
    return next.version > served.version ? 'newer' : 'older';
  }
  if (next.sequence === null || next.sequence < served.sequence) return 'older';
  return next.sequence > served.sequence ? 'newer' : 'unrelated';
}

/** The sequence a writer gives its next version: above every position it knows of. */
export function nextSequence(...known: Array<StorePosition | null>): number {
  return Math.max(0, ...known.map((position) => position?.sequence ?? 0)) + 1;
}
