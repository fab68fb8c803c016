import { copyFile, rm, stat } from 'node:fs/promises';
import type { StorageDriver } from '@snapdeck/snapshot';
import type { OpenPart } from './follower-view.ts';
import type { PartRef } from './layout.ts';
import { fetchPart, patchPlan, type HeldPart } from './part-fetch.ts';
import { pageHashesOf, pageRoot, patchInPlace } from './page-hashes.ts';

/**
 * The follower's decks files (patched with deck deltas). Besides the file it serves, a gateway
 * keeps the one it served before (the *spare*), closed once no request reads it. A new decks part
 * that the spare can reach by deltas is made by patching the spare in place: only the changed pages
 * are written (a few MB per import), where copying the served file costs a pass over all of it (at
 * a million decks, 4 s to copy 1.17 GB and 2.4 s to remove a file that size, measured under load).
 * So `--cache-dir` holds two decks files. Otherwise the served file is copied and patched, or the
 * part downloaded whole (part-fetch.ts).
 */
export class DecksFiles {
  private spare: HeldPart | null = null;
  private preparing: Promise<void> | null = null;

  constructor(private readonly driver: StorageDriver, private readonly onError?: (error: unknown) => void) {}

  /**
   * After a start the served decks file has no page hashes and there is no spare, so the first
   * import would hash the whole file and copy it before patching (13-14 s at a million decks,
   * against 10 ms-1.8 s for later imports). Both are done now, in the background: the hashes
   * (checked against the part's page root) and a copy of the served file as the spare.
   */
  prepare(served: OpenPart): void {
    const { pageSize, pageRoot: root } = served.ref;
    if (this.spare || this.preparing || !pageSize || !root) return;
    const file = `${served.file}.spare`;
    this.preparing = (async () => {
      const hashes = served.pageHashes ?? (await pageHashesOf(served.file, pageSize));
      if (pageRoot(hashes) !== root) return; // not the file its part names: the usual path deals with it
      served.pageHashes = hashes;
      await copyFile(served.file, file);
      // A file retired meanwhile became the spare (keep): this copy is not needed.
      if (this.spare) await rm(file, { force: true });
      else this.spare = { ref: served.ref, file, hashes };
    })()
      .catch(async (error: unknown) => {
        await rm(file, { force: true });
        this.onError?.(error);
      })
      .finally(() => (this.preparing = null));
  }

  /** Waits for a preparation under way (make, close). */
  async prepared(): Promise<void> {
    await this.preparing;
  }

  /** A decks file no view uses any more becomes the spare; the spare before it is removed. */
  keep(part: OpenPart): void {
    const old = this.spare;
    this.spare = { ref: part.ref, file: part.file, hashes: part.pageHashes };
    if (old && old.file !== part.file) void rm(old.file, { force: true });
  }

  /** `file` is about to be served as it is: it is nobody's spare any more. */
  claim(file: string): void {
    if (this.spare?.file === file) this.spare = null;
  }

  /**
   * Writes the decks part `ref` to `file` from the spare, the file served (`current`), or storage.
   * `changed`: the pages in which the new file differs from `current` (when it was made by deltas).
   */
  async make(ref: PartRef, file: string, current: OpenPart | undefined): Promise<{ downloaded: number; hashes?: Buffer; changed?: { from: string; pages: number[] } }> {
    await this.prepared(); // sooner done than started over
    const spare = this.spare;
    const root = ref.pageRoot && ref.pageSize ? { ...ref, pageSize: ref.pageSize, pageRoot: ref.pageRoot } : null;
    if (spare && root && (await stat(spare.file).catch(() => null))) {
      // Best: the served file was made from the spare by known pages; then only the new deltas are downloaded.
      const viaServed = current?.changedFrom?.from === spare.ref.sha256 ? patchPlan(ref, current.ref.sha256) : null;
      const plan = viaServed ?? patchPlan(ref, spare.ref.sha256);
      if (plan) {
        this.spare = null;
        const hashes = spare.hashes ?? (await pageHashesOf(spare.file, root.pageSize));
        if (!spare.ref.pageRoot || pageRoot(hashes) === spare.ref.pageRoot) {
          const fromServed = viaServed && current?.changedFrom ? { file: current.file, pages: current.changedFrom.pages } : undefined;
          const made = await patchInPlace(this.driver, 'decks', plan.under, plan.deltas, { file: spare.file, hashes }, file, root, fromServed);
          // The new file differs from the served one by the deltas' pages (when made via it), else from the spare's.
          return { ...made, changed: { from: viaServed && current ? current.ref.sha256 : spare.ref.sha256, pages: made.changed } };
        }
        await rm(spare.file, { force: true });
      }
    }
    // The served file's page hashes, once (the next delta, and the one after from the spare, need no pass over it).
    if (current && !current.pageHashes && ref.pageSize && patchPlan(ref, current.ref.sha256)) current.pageHashes = await pageHashesOf(current.file, ref.pageSize);
    const made = await fetchPart(this.driver, 'decks', ref, file, current ? { ref: current.ref, file: current.file, hashes: current.pageHashes } : undefined);
    return { ...made, changed: made.changed && current ? { from: current.ref.sha256, pages: made.changed } : undefined };
  }
}
