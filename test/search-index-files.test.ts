/**
 * What the build writes into a version's search index for each card, and nothing twice: the hit
 * once, as written, in the record URL (percent-encoded, the fragment files a first query
 * downloads were 17 % larger); each id and card number once, as the word the engine itself
 * makes of it (a compact word of our own beside it added two words per card to the index
 * chunks). Searches that rely on those words: an id typed whole, and a set code typed, which is a
 * search, not a typo of a card name.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAMES, SEARCH_PATHS, compactId, idWord, nameEntryWord, nameWord, searchRecordHit, type GameSlug } from '@snapdeck/contract';
import { SnapdeckClient } from '@snapdeck/client';
import { FsDriver, SEARCH_TABLE_FILE, build, decodeSearchTable, layout, readPointer } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const COUNTS = { digimon: 40, 'grand-archive': 20 } as const;
const INDEXED = Object.keys(COUNTS) as Array<keyof typeof COUNTS>;
/** Rules text with what percent-encoding escaped: `%`, quotes, spaces, non-ASCII. */
const EFFECT = 'Gain 100% "more" memory. 【Burst】 Draw 1 card.';

let dir: string;
let cleanup: () => Promise<void>;
let gateway: TestGateway;
let storage: FsDriver;
let client: SnapdeckClient;
let specialId: string;
const setOf = (id: string) => id.split('-')[0]!;

/** Every record of a game's index (each fragment file, as the gateway serves it, unpacked). */
type IndexRecord = { url: string; content: string; meta: { title: string } };

async function records(game: GameSlug): Promise<IndexRecord[]> {
  const { version } = (await readPointer(storage, layout.pointer(game)))!;
  const table = decodeSearchTable((await storage.get(layout.file(game, version, SEARCH_TABLE_FILE)))!.body);
  const base = `${gateway.url}${SEARCH_PATHS.base(GAMES.find((g) => g.slug === game)!.searchIndexName, version)}`;
  const out: IndexRecord[] = [];
  for (const { path } of table.files.filter((file) => file.path.startsWith('fragment/'))) {
    const response = await fetch(`${base}${path}`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(response.status, path).toBe(200);
    const unpacked = gunzipSync(Buffer.from(await response.arrayBuffer()));
    expect(unpacked.subarray(0, 12).toString(), path).toBe('pagefind_dcd');
    out.push(...Object.values(JSON.parse(unpacked.subarray(12).toString('utf8')) as Record<string, IndexRecord>));
  }
  return out;
}

/** Every hit a walk of the game's current version yields, by id. */
async function walked(game: GameSlug): Promise<Map<string, unknown>> {
  const hits = new Map<string, unknown>();
  for await (const hit of client.walkCards(game)) hits.set(hit.id, hit);
  return hits;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  const catalogDir = join(dir, 'catalog');
  await writeGeneratedCatalog(catalogDir, COUNTS);
  const file = join(catalogDir, 'digimon.jsonl');
  const lines = (await readFile(file, 'utf8')).trim().split('\n').map((line) => JSON.parse(line));
  lines[3].effect = EFFECT;
  specialId = lines[3].id;
  // A card name one edit from the set code of that id (`BT1` → `BT7`), which names no card.
  const set = setOf(specialId);
  lines[5].name.english = `${set.slice(0, -1)}${set.endsWith('7') ? '8' : '7'}`;
  await writeFile(file, lines.map((card) => JSON.stringify(card)).join('\n') + '\n');
  storage = new FsDriver(join(dir, 'snapshots'));
  await build({ catalogDir, storage, hitsPerPage: [100] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  client = new SnapdeckClient({ baseUrl: gateway.base, apiKey: gateway.createKey({ quota: 1_000_000 }) });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

describe('a search index record', () => {
  it('carries the card\'s hit once, as written: only `%` escaped in its URL', async () => {
    for (const game of INDEXED) {
      const hits = await walked(game);
      const seen = new Set<string>();
      for (const record of await records(game)) {
        const hit = JSON.parse(searchRecordHit(record.url)) as { id: string };
        expect(hits.get(hit.id), `${game} ${hit.id}`).toEqual(hit);
        expect(record.url).toBe(`/#${JSON.stringify(hit).replaceAll('%', '%25')}`);
        seen.add(hit.id);
      }
      expect(seen.size, game).toBe(COUNTS[game]);
    }
    const special = (await records('digimon')).find((record) => record.url.includes(specialId))!;
    expect(special.url).toContain('Gain 100%25 \\"more\\" memory. 【Burst】');
  });

  it('holds each id once, as the one word the engine makes of it and an id typed whole searches', async () => {
    for (const game of INDEXED) {
      for (const record of await records(game)) {
        const { id } = JSON.parse(searchRecordHit(record.url)) as { id: string };
        // Its name's words (nameWord) hold the same letters when the id is the name (Grand Archive's).
        const nameWords = [nameWord(record.meta.title), nameEntryWord(record.meta.title)];
        const idWords = record.content.split(/\s+/u).filter((word) => compactId(word) === compactId(id) && !nameWords.includes(word));
        expect(idWords, `${game} ${id}`).toEqual([idWord(id)]);
      }
    }
    expect(idWord('BT1-010_P1')).toBe('BT1-010-P1_');
    expect(compactId('BT1-010_P1')).toBe('bt1010p1_');
  });
});

describe('a search', () => {
  it('finds a card by its id typed whole, first, and by its id in lower case', async () => {
    const hits = await walked('grand-archive');
    for (const id of hits.keys()) {
      expect((await client.searchCards('grand-archive', id, { limit: 1 })).hits[0]?.id, id).toBe(id);
    }
    expect((await client.searchCards('digimon', specialId.toLowerCase(), { limit: 1 })).hits[0]?.id).toBe(specialId);
  });

  it('lists the cards of a set code typed, not the cards of a name one edit from it', async () => {
    const set = setOf(specialId);
    const found = await client.searchCards('digimon', set, { limit: 5 });
    expect(found.correctedTo).toBeUndefined();
    expect(found.hits.length).toBeGreaterThan(0);
    for (const hit of found.hits) expect(hit.id.startsWith(`${set}-`), hit.id).toBe(true);
  });
});
