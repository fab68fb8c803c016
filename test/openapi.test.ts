import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAME_SLUGS } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

let gateway: TestGateway;
let cleanup: () => Promise<void>;
let key: string;
let doc: any;

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 60, gundam: 60, 'grand-archive': 60, 'chrono-core': 60 });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1, 25] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  key = gateway.createKey();
  doc = (await getJson(`${gateway.base}/openapi.json`)).body;
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

/** Validates a body against the schema the document gives for a path, method and status. */
function validator(path: string, method: string, status: number) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
  const schema = doc.paths[path][method].responses[status].content['application/json'].schema;
  const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
  return ajv.compile(resolved);
}

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document, version 1.0.0, needing no key', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/games', '/games/{slug}/cards', '/games/{slug}/cards/{cardId}', '/decks/public', '/decks/details', '/decks/{deckId}', '/decks/{deckId}/text']));
  });

  it('describes the real responses of the card endpoints', async () => {
    const headers = { 'X-API-Key': key };
    const games = validator('/games', 'get', 200);
    expect(games((await getJson(`${gateway.base}/games`, headers)).body), JSON.stringify(games.errors)).toBe(true);
    const page = validator('/games/{slug}/cards', 'get', 200);
    const card = validator('/games/{slug}/cards/{cardId}', 'get', 200);
    for (const slug of GAME_SLUGS) {
      for (const hitsPerPage of [1, 25, 60]) {
        const body = (await getJson(`${gateway.base}/games/${slug}/cards?hitsPerPage=${hitsPerPage}`, headers)).body;
        expect(page(body), `${slug}: ${JSON.stringify(page.errors)}`).toBe(true);
        const one = (await getJson(`${gateway.base}/games/${slug}/cards/${body.data.hits[0].id}`, headers)).body;
        expect(card(one), `${slug}: ${JSON.stringify(card.errors)}`).toBe(true);
      }
    }
    const error = validator('/games/{slug}/cards', 'get', 400);
    expect(error((await getJson(`${gateway.base}/games/digimon/cards?hitsPerPage=0`, headers)).body)).toBe(true);
    // The document is strict enough to refuse a wrong body.
    expect(page({ data: { hits: [], cursor: 5, totalHits: 0 } })).toBe(false);
  });
});
