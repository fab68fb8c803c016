/**
 * The real card data (../shared/data/raw) built into snapshots and walked through the gateway:
 * the truest test of the card schemas, the build and the walk. Runs when ../shared is beside the
 * checkout (always in CI).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_MODELS, GAME_SLUGS, cardsPageResponse } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { importRealCatalog, realDataDir } from '../scripts/import-real.ts';
import { getJson, startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const raw = realDataDir();

describe.skipIf(!raw)('the real card data, built and walked', () => {
  let gateway: TestGateway;
  let cleanup: () => Promise<void>;
  let key: string;
  const catalogs: Record<string, Array<{ id: string }>> = {};

  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir());
    importRealCatalog({ raw: raw!, out: join(dir, 'catalog') });
    for (const game of GAME_SLUGS) {
      const text = await readFile(join(dir, 'catalog', `${game}.jsonl`), 'utf8');
      catalogs[game] = text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: string });
    }
    await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1, 100, 1000] });
    gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
    key = gateway.createKey();
  });

  afterAll(async () => {
    await gateway?.close();
    await cleanup?.();
  });

  it.each(GAME_SLUGS.flatMap((game) => [1000, 333].map((hitsPerPage) => [game, hitsPerPage] as const)))(
    '%s at hitsPerPage=%i: every card once, hits valid, cursor null at the end',
    async (game, hitsPerPage) => {
      const schema = cardsPageResponse(CARD_MODELS[game].hit);
      const seen: string[] = [];
      let cursor: string | null = null;
      let totalHits = -1;
      do {
        const query: string = `hitsPerPage=${hitsPerPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await getJson(`${gateway.base}/games/${game}/cards?${query}`, { 'X-API-Key': key });
        expect(page.status, page.text).toBe(200);
        schema.parse(page.body);
        seen.push(...page.body.data.hits.map((hit: { id: string }) => hit.id));
        totalHits = page.body.data.totalHits;
        cursor = page.body.data.cursor;
      } while (cursor !== null);
      const expected = catalogs[game]!.map((card) => card.id);
      expect(totalHits).toBe(expected.length);
      expect(seen.length).toBe(expected.length);
      expect(new Set(seen)).toEqual(new Set(expected));
    },
  );

  it('serves every real card whole, as imported', async () => {
    for (const game of GAME_SLUGS) {
      const cards = catalogs[game]!;
      for (const card of [cards[0]!, cards[Math.floor(cards.length / 2)]!, cards.at(-1)!]) {
        const response = await getJson(`${gateway.base}/games/${game}/cards/${card.id}`, { 'X-API-Key': key });
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ data: card });
      }
    }
  });
});
