import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECK_DETAILS_MAX_IDS, GAME_SLUGS, buildOpenApiDocument } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';
import { OpenApiValidator } from './helpers/openapi-validator.ts';
import { responseValidation } from './helpers/response-validation.ts';
import { startGateway } from '@snapdeck/gateway';
import pino from 'pino';

let gateway: TestGateway;
let cleanup: () => Promise<void>;
let key: string;
let doc: any;
let dir: string;

beforeAll(async () => {
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

/** Every schema object of a JSON Schema tree, with its JSON pointer. */
function* walk(value: unknown, at = '#'): Generator<[string, any]> {
  if (!value || typeof value !== 'object') return;
  yield [at, value];
  for (const [k, v] of Object.entries(value)) yield* walk(v, `${at}/${k}`);
}

const operations = (d: any) =>
  Object.entries<any>(d.paths).flatMap(([path, item]) => Object.entries<any>(item).map(([method, op]) => ({ path, method, op })));

describe('the published document', () => {
  it('is buildOpenApiDocument() byte for byte (the document the test suite validates every response against)', async () => {
    expect((await getJson(`${gateway.base}/openapi.json`)).text).toBe(JSON.stringify(buildOpenApiDocument()));
  });

  it('has open response schemas: no additionalProperties false and no closed string enum anywhere in a response; the strict variant has both', () => {
    const closed = (d: any) => [...walk(d.components.schemas)].filter(([at, s]) => !at.includes('DeckDetailsRequest') && (s.additionalProperties === false || (Array.isArray(s.enum) && at.includes('/properties/'))));
    expect(closed(doc).map(([at]) => at)).toEqual([]);
    const strict = buildOpenApiDocument({ strict: true }) as any;
    expect(closed(strict).length).toBeGreaterThan(50);
    // Open, yet still typed: a wrong type is refused, an unknown field accepted.
    const page = new OpenApiValidator(doc);
    const sample = { data: { hits: [], cursor: null, totalHits: 0, indexVersion: '2026-11-22T11-05-12-345Z-a1b2c3', addedLater: true } };
    const url = new URL(`${gateway.base}/games/digimon/cards`);
    expect(page.check({ method: 'GET', url, status: 200, headers: new Headers({ 'content-type': 'application/json', 'x-request-id': 'r', etag: '"e"', 'cache-control': 'public', 'ratelimit-policy': '"default";q=5;w=900', ratelimit: '"default";r=4;t=9', 'ratelimit-limit': '5', 'ratelimit-remaining': '4', 'ratelimit-reset': '9' }), text: JSON.stringify(sample) })).toEqual([]);
  });

  it('documents every status: 304 with ETag on every GET that has one, 401/403/429/500 where they occur, and a default for 404/405', () => {
    for (const { path, method, op } of operations(doc)) {
      const where = `${method} ${path}`;
      const statuses = Object.keys(op.responses);
      expect(statuses, where).toEqual(expect.arrayContaining(['200', '500', 'default']));
      expect(op.responses.default.description, where).toContain('"Not found"');
      expect(op.responses.default.description, where).toContain('"Method not allowed"');
      if (method === 'get') {
        expect(op.responses[304]?.headers?.ETag?.required, where).toBe(true);
        expect(op.responses[200].headers.ETag.required, where).toBe(true);
      }
      const keyed = op.security === undefined;
      expect(statuses.includes('401'), where).toBe(keyed);
      if (path !== '/openapi.json') {
        expect(op.responses[429].headers['Retry-After'].required, where).toBe(true);
        for (const header of ['RateLimit-Policy', 'RateLimit', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
          expect(op.responses[200].headers[header]?.required, `${where} ${header}`).toBe(true);
        }
      }
      // Every answer, those decided before any route (408, 431) included.
      for (const [status, response] of Object.entries<any>(op.responses)) expect(response.headers['X-Request-Id']?.required ?? false, `${where} ${status}`).toBe(true);
      expect(op.responses[431].description, where).toContain('"Request header fields too large"');
      // The path check comes before any route, so every operation can answer it.
      expect(op.responses[400].description, where).toContain('"Invalid request path"');
      expect(op.responses[408].description, where).toContain('"Request timeout"');
      expect(op.description?.length, where).toBeGreaterThan(20);
      expect(op.tags?.length, where).toBe(1);
      expect(doc.tags.map((t: any) => t.name), where).toContain(op.tags[0]);
      expect(op.deprecated, where).toBeUndefined();
    }
    expect(Object.keys(doc.paths['/decks/public'].get.responses)).toEqual(expect.arrayContaining(['304', '403']));
    expect(Object.keys(doc.paths['/games'].get.responses)).toEqual(expect.arrayContaining(['304', '401', '429']));
    expect(Object.keys(doc.paths['/decks/details'].post.responses)).toEqual(expect.arrayContaining(['400', '403']));
  });

  it('describes every parameter, bounds the details body, gives every served deck id format uuid, and has contact and license', () => {
    for (const parameter of Object.values<any>(doc.components.parameters)) expect(parameter.description?.length, parameter.name).toBeGreaterThan(5);
    const body = doc.components.schemas.DeckDetailsRequest;
    expect(body.properties.ids.maxItems).toBe(DECK_DETAILS_MAX_IDS);
    // Any string is answered 200 (malformed ids come back in `unresolved`), so the request items
    // promise no format a fuzzer would read as "400 otherwise".
    expect(body.properties.ids.items.format).toBeUndefined();
    expect(body.properties.ids.items.type).toBe('string');
    expect(doc.components.parameters.IfNoneMatch.description).toMatch(/`\*`.*304.*RFC 9110/);
    expect(doc.components.parameters.DeckId.schema.format).toBe('uuid');
    for (const name of ['DeckSummary', 'DeckDetail', 'Deck']) expect(doc.components.schemas[name].properties.id.format, name).toBe('uuid');
    expect(doc.components.schemas.GaTtsResponse.properties.data.properties.id.format).toBe('uuid');
    for (const path of ['/decks/{deckId}', '/decks/{deckId}/text']) {
      expect(doc.paths[path].get.parameters).toContainEqual({ $ref: '#/components/parameters/DeckId' });
    }
    expect(doc.info.contact.name).toBeTruthy();
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('names each game\'s hit and card in an operation of its own, so generators type them', () => {
    for (const slug of GAME_SLUGS) {
      const prefix = slug.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase());
      expect(doc.paths[`/games/${slug}/cards`].get.responses[200].content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${prefix}CardsPage` });
      expect(doc.paths[`/games/${slug}/cards/{cardId}`].get.responses[200].content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${prefix}CardResponse` });
      expect(doc.components.schemas[`${prefix}CardsPage`].properties.data.properties.hits.items).toEqual({ $ref: `#/components/schemas/${prefix}Hit` });
    }
  });

  it('marks the operations the operator deprecated, with the Deprecation, Sunset and Link headers, in the document served', async () => {
    const deprecated = await startGateway({
      port: 0,
      host: '127.0.0.1',
      snapshots: join(dir, 'snapshots'),
      db: join(dir, 'snapdeck.db'),
      log: pino({ level: 'silent' }),
      deprecations: [
        { path: '/v1/games/:slug/cards', announcedAt: '2026-01-15', sunsetAt: '2026-07-15', link: 'https://example.org/sunset' },
        { method: 'POST', path: '/v1/decks/details', announcedAt: '2026-01-15', sunsetAt: '2026-07-15', link: 'https://example.org/sunset' },
      ],
    });
    try {
      const served = (await getJson(`${deprecated.url}/v1/openapi.json`)).body;
      const marked = operations(served).filter(({ op }) => op.deprecated).map(({ method, path }) => `${method} ${path}`);
      expect(marked.sort()).toEqual(['get /games/{slug}/cards', ...GAME_SLUGS.map((slug) => `get /games/${slug}/cards`), 'post /decks/details'].sort());
      for (const [status, response] of Object.entries<any>(served.paths['/decks/details'].post.responses)) {
        // The 408 and 431 are answered before any route, so without the route's headers.
        for (const header of ['Deprecation', 'Sunset', 'Link']) expect(response.headers[header]?.required ?? false, `${status} ${header}`).toBe(status !== '431' && status !== '408');
      }
      expect(served.paths['/games'].get.responses[200].headers.Deprecation).toBeUndefined();
      // The deprecated route answers with the headers its document requires.
      const r = await getJson(`${deprecated.url}/v1/games/digimon/cards`, { 'X-API-Key': key });
      const problems = new OpenApiValidator(served).check({ method: 'GET', url: new URL(`${deprecated.url}/v1/games/digimon/cards`), status: r.status, headers: r.headers, text: r.text });
      expect(problems).toEqual([]);
      expect(r.headers.get('deprecation')).toMatch(/^@\d+$/);
    } finally {
      await deprecated.close();
    }
  });
});

describe('the response validator every HTTP test goes through (test/setup/validate-responses.ts)', () => {
  it('has validated the responses of this file', () => {
    expect(responseValidation.validated).toBeGreaterThan(20);
  });

  it('reports what a partner\'s validator would: undocumented status, unlisted error, wrong body, missing or bad header, undocumented content type', () => {
    const v = new OpenApiValidator(doc);
    const url = new URL(`${gateway.base}/games`);
    const base = { 'x-request-id': 'r', 'cache-control': 'no-store', 'content-type': 'application/json' };
    const check = (status: number, headers: Record<string, string>, body: unknown, method = 'GET', at = url) =>
      v.check({ method, url: at, status, headers: new Headers(headers), text: typeof body === 'string' ? body : JSON.stringify(body) });
    expect(check(403, base, { error: 'x' })[0]).toContain('status 403 is not documented');
    expect(check(401, base, { error: 'Nope' })[0]).toContain('"Nope" is not listed');
    expect(check(401, { ...base, 'x-request-id': 'bad id!' }, { error: 'API key required' })[0]).toContain('header X-Request-Id');
    expect(check(401, { 'cache-control': 'no-store', 'content-type': 'application/json' }, { error: 'API key required' })[0]).toContain('required header X-Request-Id is missing');
    expect(check(429, { ...base, 'retry-after': 'soon' }, { error: 'Rate limit exceeded' }).join('\n')).toContain('Retry-After: "soon" is not a number');
    expect(check(401, base, { error: 5 }).join('\n')).toContain('body does not match');
    expect(check(401, { ...base, 'content-type': 'text/html' }, '<p>')[0]).toContain('content type text/html is not documented');
    expect(check(200, base, {}, 'PUT')[0]).toContain('expected 405');
    expect(check(404, base, { error: 'Not found' }, 'GET', new URL(`${gateway.base}/nowhere`))).toEqual([]);
    expect(check(405, base, { error: 'Method not allowed' }, 'DELETE')).toEqual([]);
  });
});
