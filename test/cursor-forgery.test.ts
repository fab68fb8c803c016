import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsDriver, SnapshotReader, build, encodeCursor, resolveCursor, type StorageDriver } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { tempDir } from './helpers/harness.ts';

/** Counts the storage reads a store makes, by key. */
function counting(driver: StorageDriver): { driver: StorageDriver; reads: string[] } {
  const reads: string[] = [];
  const wrapped = Object.create(driver) as StorageDriver;
  wrapped.get = (key) => (reads.push(key), driver.get(key));
  wrapped.head = (key) => (reads.push(key), driver.head(key));
  wrapped.getRange = (key, offset, length) => (reads.push(key), driver.getRange(key, offset, length));
  return { driver: wrapped, reads };
}

describe('forged cursors', () => {
  it('are refused before anything of the version they name is read', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      await writeGeneratedCatalog(join(dir, 'catalog'), { gundam: 30 });
      await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [10] });
      const { driver, reads } = counting(new FsDriver(join(dir, 'snapshots')));
      const store = new SnapshotReader(driver);
      const current = (await store.current('gundam'))!;
      const genuine = current.cursorFor(10, 1);
      expect((await resolveCursor(store, genuine, 'gundam', 10)).ok).toBe(true);

      reads.length = 0;
      for (let i = 0; i < 20; i++) {
        const madeUp = `2026-01-0${(i % 9) + 1}T00-00-00-000Z-${String(i).padStart(6, '0')}`;
        const forged = encodeCursor(Buffer.alloc(32, i), { game: 'gundam', hitsPerPage: 10, version: madeUp, page: 1 });
        expect((await resolveCursor(store, forged, 'gundam', 10)).ok).toBe(false);
      }
      expect(reads.filter((key) => key.includes('/versions/'))).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
