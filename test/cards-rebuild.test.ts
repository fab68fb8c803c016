import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, waitFor, type TestGateway } from './helpers/harness.ts';

let gateway: TestGateway;
let cleanup: () => Promise<void>;
let dir: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  await writeGeneratedCatalog(join(dir, 'catalog'), { gundam: 60 }, 1);
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [10] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db'), pointerTtlMs: 50 });
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

describe('a walk across a rebuild', () => {
  it('finishes on the version it started on, while new walks see the new version without a restart', async () => {
    const key = gateway.createKey();
    const headers = { 'X-API-Key': key };
    for (const hitsPerPage of [10, 7]) {
      const seen: string[] = [];
      let page = await getJson(`${gateway.base}/games/gundam/cards?hitsPerPage=${hitsPerPage}`, headers);
      const before = page.body.data.totalHits;
      seen.push(...page.body.data.hits.map((h: { id: string }) => h.id));
      page = await getJson(`${gateway.base}/games/gundam/cards?hitsPerPage=${hitsPerPage}&cursor=${encodeURIComponent(page.body.data.cursor)}`, headers);
      seen.push(...page.body.data.hits.map((h: { id: string }) => h.id));

      // Rebuild from a different catalog (other seed, other size) while the walk is half done.
      const size = 45 + hitsPerPage;
      await writeGeneratedCatalog(join(dir, 'catalog'), { gundam: size }, 100 + hitsPerPage);
      await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [10] });
      await waitFor(async () => (await getJson(`${gateway.base}/games/gundam/cards?hitsPerPage=${hitsPerPage}`, headers)).body.data.totalHits === size, 5000);

      let cursor: string | null = page.body.data.cursor;
      while (cursor !== null) {
        page = await getJson(`${gateway.base}/games/gundam/cards?hitsPerPage=${hitsPerPage}&cursor=${encodeURIComponent(cursor)}`, headers);
        expect(page.status).toBe(200);
        expect(page.body.data.totalHits).toBe(before);
        seen.push(...page.body.data.hits.map((h: { id: string }) => h.id));
        cursor = page.body.data.cursor;
      }
      expect(seen).toHaveLength(before);
      expect(new Set(seen).size).toBe(before);
    }
  });
});
