/**
 * Requests naming versions that do not exist (well-formed, made up, sent without a key to the
 * search routes or in a forged walk) must not push the versions that do exist out of a gateway's
 * version cache: each is answered 404 as before, a repeated one costs no storage request, and an
 * older kept version still loaded stays loaded (read from memory, not storage, afterwards).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, SnapshotReader, build, layout } from '@snapdeck/snapshot';
import { SEARCH_PATHS, findGame } from '@snapdeck/contract';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { CountingDriver } from './helpers/counting-driver.ts';
import { startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const GAME = 'chrono-core';
const FAKES = 1000;
/** Made-up names in the version format: `2020-01-01T00-00-00-000Z-` and 6 hex digits. */
const fake = (i: number) => `2020-01-01T00-00-00-000Z-${i.toString(16).padStart(6, '0')}`;

let dir: string;
let cleanup: () => Promise<void>;
let versions: string[];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-thrash-'));
  versions = [];
  // Three versions of one game: two older ones kept, one current.
  for (const seed of [1, 2, 3]) {
    await writeGeneratedCatalog(join(dir, 'catalog'), { [GAME]: 30 }, seed);
    const [result] = await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), games: [GAME], hitsPerPage: [10] });
    versions.push(result!.version);
  }
}, 120_000);

afterAll(async () => {
  await cleanup?.();
});

describe('versions that do not exist', () => {
  it('take no place among the loaded versions and cost no storage request (one listing tells)', async () => {
    const driver = new CountingDriver(new FsDriver(join(dir, 'snapshots')));
    // Two places, a minute between re-checks: one made-up name would be enough to evict.
    const reader = new SnapshotReader(driver, { maxVersions: 2, pointerTtlMs: 60_000 });
    const [oldest, older] = versions as [string, string];
    expect(await reader.version(GAME, oldest)).not.toBeNull();
    expect(await reader.version(GAME, older)).not.toBeNull();

    driver.reset();
    for (let i = 0; i < FAKES; i++) expect(await reader.version(GAME, fake(i))).toBeNull();
    // Older than every version listed, and the listing is fresh: not a single storage request.
    expect([...driver.requests]).toEqual([]);

    // The kept versions were not evicted: answered from memory.
    expect(await reader.version(GAME, oldest)).not.toBeNull();
    expect(await reader.version(GAME, older)).not.toBeNull();
    expect([...driver.requests]).toEqual([]);
  });

  it('a name newer than every version listed waits for a new listing, at most one per interval however many ask', async () => {
    const driver = new CountingDriver(new FsDriver(join(dir, 'snapshots')));
    const reader = new SnapshotReader(driver, { pointerTtlMs: 60_000 });
    const real = versions[0]!;
    // Concurrent first requests for one version share a load.
    const loads = await Promise.all([reader.version(GAME, real), reader.version(GAME, real), reader.version(GAME, real)]);
    expect(loads.every((v) => v !== null && v === loads[0])).toBe(true);
    expect(driver.keysRead.filter((key) => key === layout.manifest(GAME, real))).toHaveLength(1);

    // Made-up names from the future: each must be looked for, yet 200 of them cost a few listings.
    driver.reset();
    const future = (i: number) => `2999-01-01T00-00-00-000Z-${i.toString(16).padStart(6, '0')}`;
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => reader.version(GAME, future(i))));
    expect(answers.every((answer) => answer === null)).toBe(true);
    const listings = driver.requests.get('list') ?? 0;
    expect(listings).toBeGreaterThanOrEqual(1);
    expect(listings).toBeLessThanOrEqual(2 + Math.ceil((Date.now() - started) / 250));
    expect(driver.requests.get('get') ?? 0).toBe(0);

    // A version published after the listing is found at once, not after the re-check minute.
    await writeGeneratedCatalog(join(dir, 'catalog'), { [GAME]: 30 }, 4);
    const [published] = await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), games: [GAME], hitsPerPage: [10] });
    expect((await reader.version(GAME, published!.version))?.version).toBe(published!.version);
  });

  it('are answered 404 Search index not found by the gateway, and the older version is still served', async () => {
    const gateway: TestGateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'gateway.db'), pointerTtlMs: 60_000 });
    try {
      const name = findGame(GAME)!.searchIndexName;
      const oldFile = `${gateway.url}${SEARCH_PATHS.base(name, versions[0]!)}pagefind-entry.json`;
      const first = await fetch(oldFile);
      expect(first.status).toBe(200);
      const body = await first.arrayBuffer();
      for (let i = 0; i < 50; i++) {
        const response = await fetch(`${gateway.url}${SEARCH_PATHS.base(name, fake(i))}pagefind-entry.json`);
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ error: 'Search index not found' });
      }
      const again = await fetch(oldFile);
      expect(again.status).toBe(200);
      expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(body))).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});
