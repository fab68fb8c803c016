import { rename, rm } from 'node:fs/promises';
import type { StorageDriver } from '@snapdeck/snapshot';
import type { DeltaRef, PartRef, StorePart } from './layout.ts';
import { applyDeltas } from './page-delta.ts';
import { pageHashesOf, pageRoot, patchCopy } from './page-hashes.ts';
import { downloadPart, tempName } from './parts.ts';

/**
 * Getting a part file to disk with the fewest bytes (a deck change costs what changed): from a file
 * already held (the gateway's current decks), by applying only the deltas it lacks (with page
 * hashes, without reading the file: page-hashes.ts); otherwise whole (the base file's segments,
 * then every delta). Either way every object is checked against its SHA-256 and the file made
 * against the part's, and nothing is left at `file` on failure.
 */

/** The deltas that turn the file `have` (a part's SHA-256) into `ref`, or null when there is no such path. */
export function patchPlan(ref: PartRef, have: string): { under: string; deltas: DeltaRef[] } | null {
  if (ref.base && ref.deltas) {
    if (have === ref.base.sha256) return { under: ref.base.sha256, deltas: ref.deltas };
    const at = ref.deltas.findIndex((delta) => delta.result.sha256 === have);
    if (at >= 0 && at < ref.deltas.length - 1) return { under: ref.base.sha256, deltas: ref.deltas.slice(at + 1) };
  }
  if (ref.bridge && ref.bridge.from === have) return { under: ref.sha256, deltas: [ref.bridge.delta] };
  return null;
}

/** A part file already on disk (never changed), with its page hashes when known (page-hashes.ts). */
export interface HeldPart {
  ref: PartRef;
  file: string;
  hashes?: Buffer;
}

/**
 * Writes part `ref` to `file` (checked); `have`: a file of this part already on disk. Returns the
 * bytes downloaded from storage and, when it made the file from `have`, the new file's page hashes.
 */
export async function fetchPart(driver: StorageDriver, part: StorePart, ref: PartRef, file: string, have?: HeldPart): Promise<{ downloaded: number; hashes?: Buffer; changed?: number[] }> {
  const plan = have ? patchPlan(ref, have.ref.sha256) : null;
  if (have && plan && ref.pageRoot && ref.pageSize && (have.ref.pageSize ?? ref.pageSize) === ref.pageSize) {
    // Hashes of a file that matched its SHA-256 when it was installed (and its root, when named).
    const hashes = have.hashes ?? (await pageHashesOf(have.file, ref.pageSize));
    if (!have.ref.pageRoot || pageRoot(hashes) === have.ref.pageRoot) {
      const temp = tempName(file);
      const made = await patchCopy(driver, part, plan.under, plan.deltas, { file: have.file, hashes }, temp, { ...ref, pageSize: ref.pageSize, pageRoot: ref.pageRoot });
      await rename(temp, file);
      return made;
    }
  }
  if (have && plan) {
    const temp = tempName(file);
    const downloaded = await applyDeltas(driver, part, plan.under, plan.deltas, have.file, temp, ref);
    await rename(temp, file);
    return { downloaded };
  }
  if (!ref.base || !ref.deltas) return { downloaded: await downloadPart(driver, part, ref, file) };
  const baseFile = `${tempName(file)}.base`;
  try {
    const base = { sha256: ref.base.sha256, size: ref.base.size, generation: ref.generation, segments: ref.segments, digest: ref.digest, pageSize: ref.pageSize };
    let downloaded = await downloadPart(driver, part, base, baseFile);
    const temp = tempName(file);
    downloaded += await applyDeltas(driver, part, ref.base.sha256, ref.deltas, baseFile, temp, ref);
    await rename(temp, file);
    return { downloaded };
  } finally {
    await rm(baseFile, { force: true });
  }
}
