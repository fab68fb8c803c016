/**
 * Requests generated from the served OpenAPI document (GET /v1/openapi.json), valid and mutated,
 * sent to a real gateway over a generated catalog and a deck store. For every operation the
 * generator draws each parameter from its schema (and from pools of real values: card ids, deck
 * ids, tokens, cursors of every game, page size and version, one of them collected by gc, the
 * versions card changes are synced from, and a changes cursor), then
 * may mutate the request: a parameter of
 * the wrong type, out of range, empty, huge, in odd Unicode, duplicated or missing; another
 * method; a missing, malformed, revoked, scope-less or exhausted key; a broken body.
 *
 * Every answer is checked against the document and decisions.md:
 * - never 5xx; the status is documented for the operation (or its `default`);
 * - the content type is one the document gives for that status, and a JSON body validates against
 *   its schema (ajv, JSON Schema 2020-12);
 * - an error is JSON `{error}` (plus an optional `detail`) whose string the document lists;
 * - a request the document says is invalid (a value outside its parameter schema, a missing
 *   required parameter, a body outside the request schema, a method the path lacks) gets a 4xx;
 * - the precedence of decisions.md: 400 (path not in normal form) → 401 → 429 → 403 → 400
 *   (required parameter missing) → 404 (unknown game) → 400 (other parameters).
 *
 * SNAPDECK_CASES (test/helpers/cases.ts) sets the number of requests; a failure prints its seed,
 * the replay line and a curl line.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, GAME_SLUGS } from '@snapdeck/contract';
import { FsDriver, build, collectGarbage } from '@snapdeck/snapshot';
import { DeckStore, KeyStore } from '@snapdeck/store';
import { writeGeneratedCatalog } from '../helpers/catalog.ts';
import { waitFor } from '../helpers/harness.ts';
import { casesFor, fcParams } from '../helpers/cases.ts';
import { responseValidation } from '../helpers/response-validation.ts';
import { CONTROL_CHARACTERS, FORGED_LINES, ODD_UNICODE, PROPERTY_NAMES, hasControlCharacter, hostileString } from '../helpers/hostile-corpus.ts';
import { BOTH_SCOPES, idGenerator, importLines, startDeckEnv, startExtraGateway, withDb, type DeckLine, type DeckTestEnv } from '../helpers/decks.ts';

type KeyKind = 'full' | 'noScope' | 'exhausted' | 'revoked' | 'malformed' | 'random' | 'missing';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const SCOPED: Record<string, string> = { 'get /decks/public': 'decks:browse:public', 'get /decks/changes': 'decks:browse:public', 'post /decks/details': 'decks:read:public' };

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: any;
}

interface Operation {
  method: string;
  path: string;
  op: any;
  parameters: Parameter[];
  keyed: boolean;
}

interface GeneratedRequest {
  op: Operation;
  method: string;
  /** Path parameter values, query parameters as sent (a name may repeat), header parameters. */
  pathValues: Record<string, string>;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  keyKind: KeyKind;
  body?: string;
  contentType?: string;
  /** What the generator did to the request, for the report. */
  mutations: string[];
}

let env: DeckTestEnv;
let gateway: Awaited<ReturnType<typeof startExtraGateway>>;
let doc: any;
let ajv: Ajv2020;
/** For judging requests: JSON Schema 2020-12 (OpenAPI 3.1) makes `format` an annotation, not an assertion. */
let requestAjv: Ajv2020;
let operations: Operation[];
const keys: Partial<Record<KeyKind, string>> = {};
/** Real values the generator draws from, by parameter name. */
const pools: Record<string, string[]> = {};
/** 15-minute windows in which the exhausted key got its one allowed request. */
const windowsRefilled = new Set<number>();
const statusesSeen = new Map<string, Map<number, number>>();

const newId = idGenerator(90210);


function resolveRef(ref: string): any {
  return ref.replace(/^#\//, '').split('/').reduce((node: any, part) => node[part], doc);
}

const validators = new Map<string, ValidateFunction>();
function validatorFor(schema: any, judge: 'response' | 'request' = 'response'): ValidateFunction {
  const text = JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/');
  const id = `${judge} ${text}`;
  let validate = validators.get(id);
  if (!validate) validators.set(id, (validate = (judge === 'response' ? ajv : requestAjv).compile(JSON.parse(text))));
  return validate;
}

/** Whether a value sent as text satisfies a parameter schema (integers are sent as their digits). */
function satisfies(schema: any, value: string): boolean {
  if (schema.type === 'integer') {
    if (!/^[+-]?\d+$/.test(value)) return false;
    return validatorFor(schema, 'request')(Number(value));
  }
  return validatorFor(schema, 'request')(value);
}

// ---------------------------------------------------------------------------------------------
// Generation

const ODD = ['', ' ', '\u0000', '💥🃏', 'é\u0301', '\u202eevil', '%', '../../etc/passwd', '"\'<>', '\uFFFD', 'null', '-1', '0x10', '1e3', '1.5', 'NaN'];

function schemaValue(parameter: Parameter): fc.Arbitrary<string> {
  const pool = pools[parameter.name];
  const schema = parameter.schema ?? {};
  const fromSchema: fc.Arbitrary<string> =
    schema.enum ? fc.constantFrom(...schema.enum.map(String))
    : schema.type === 'integer' ? fc.integer({ min: schema.minimum ?? -5, max: schema.maximum ?? 60 }).map(String)
    : schema.format === 'date-time' ? fc.date({ min: new Date('2025-12-01T00:00:00Z'), max: new Date('2026-03-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString())
    : schema.format === 'uuid' ? fc.uuid({ version: 4 })
    : parameter.name === 'gameId' ? fc.constantFrom(...GAME_SLUGS)
    : schema.pattern ? fc.stringMatching(new RegExp(schema.pattern))
    : fc.string({ maxLength: 20 });
  return pool && pool.length > 0 ? fc.oneof(fc.constantFrom(...pool), fromSchema) : fromSchema;
}

/** A value meant to break the parameter: wrong type, out of range, empty, huge or odd. */
function brokenValue(parameter: Parameter): fc.Arbitrary<[string, string]> {
  const schema = parameter.schema ?? {};
  const options: Array<fc.Arbitrary<[string, string]>> = [
    fc.constantFrom(...ODD).map((v) => ['odd', v] as [string, string]),
    fc.integer({ min: 1000, max: 20_000 }).map((n) => ['huge', 'x'.repeat(n)] as [string, string]),
    fc.string({ unit: 'binary', maxLength: 12 }).map((v) => ['unicode', v] as [string, string]),
    // A lone surrogate cannot be percent-encoded into a URL: a client sends U+FFFD instead.
    hostileString().map((v) => ['hostile', v.replace(/[\ud800-\udfff]/gu, '\ufffd')] as [string, string]),
  ];
  if (schema.type === 'integer') {
    options.push(fc.constantFrom('abc', '1.5', '', '1e2', ' 7', '99999999999999999999').map((v) => ['wrong type', v] as [string, string]));
    if (schema.minimum !== undefined) options.push(fc.constantFrom(String(schema.minimum - 1), '-1', '-99999').map((v) => ['below range', v] as [string, string]));
    if (schema.maximum !== undefined) options.push(fc.constantFrom(String(schema.maximum + 1), '1000000').map((v) => ['above range', v] as [string, string]));
  }
  if (schema.enum) options.push(fc.constantFrom(...schema.enum.map((v: string) => v.toUpperCase()), 'unknown').map((v) => ['not in enum', v] as [string, string]));
  if (parameter.name === 'cursor' || parameter.name === 'startAfter' || parameter.name === 'token') {
    const pool = [...(pools.cursor ?? []), ...(pools.startAfter ?? []), ...(pools.token ?? [])];
    options.push(fc.constantFrom(...pool).map((v) => ['foreign', v] as [string, string]));
    options.push(fc.constantFrom(...pool).chain((v) => fc.nat({ max: Math.max(0, v.length - 1) }).map((i) => ['tampered', `${v.slice(0, i)}${v[i] === 'A' ? 'B' : 'A'}${v.slice(i + 1)}`] as [string, string])));
  }
  return fc.oneof(...options);
}

function bodyFor(op: Operation): fc.Arbitrary<{ body?: string; contentType?: string; mutation?: string }> {
  if (!op.op.requestBody) return fc.constant({});
  const ids = fc.array(fc.oneof(fc.constantFrom(...pools.deckId!), fc.uuid({ version: 4 }), fc.string({ maxLength: 10 })), { maxLength: 50 });
  const valid = ids.map((list) => ({ body: JSON.stringify({ ids: list }), contentType: 'application/json' }));
  const broken = fc.oneof(
    fc.constantFrom('', 'not json', '{', '[]', 'null', '{"ids": "x"}', '{"ids": [1, 2]}', '{"ids": null}', '{"id": []}', '"ids"').map((body) => ({ body, contentType: 'application/json', mutation: 'broken body' })),
    fc.array(fc.uuid({ version: 4 }), { minLength: 51, maxLength: 80 }).map((list) => ({ body: JSON.stringify({ ids: list }), contentType: 'application/json', mutation: 'too many ids' })),
    ids.map((list) => ({ body: JSON.stringify({ ids: list, ids2: list }), contentType: 'application/json', mutation: 'extra member' })),
    ids.map((list) => ({ body: JSON.stringify({ ids: list }), contentType: 'text/plain', mutation: 'content type' })),
    fc.constant({ body: JSON.stringify({ ids: ['a'.repeat(70_000)] }), contentType: 'application/json', mutation: 'huge body' }),
  );
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: broken, weight: 2 });
}

const keyKind = fc.oneof(
  { arbitrary: fc.constant<KeyKind>('full'), weight: 8 },
  { arbitrary: fc.constantFrom<KeyKind>('noScope', 'exhausted', 'revoked', 'malformed', 'random', 'missing'), weight: 2 },
);

function requestFor(op: Operation): fc.Arbitrary<GeneratedRequest> {
  const perParameter = op.parameters.map((parameter) =>
    fc
      .tuple(
        fc.oneof(
          { arbitrary: schemaValue(parameter).map((value) => ({ value, mutation: null as string | null })), weight: 6 },
          { arbitrary: brokenValue(parameter).map(([mutation, value]) => ({ value, mutation: mutation as string | null })), weight: 1 },
        ),
        // present, missing (optional ones are often left out), or duplicated
        fc.oneof({ arbitrary: fc.constant('present' as const), weight: parameter.required ? 10 : 4 }, { arbitrary: fc.constant('missing' as const), weight: parameter.required ? 1 : 4 }, { arbitrary: fc.constant('twice' as const), weight: 1 }),
        schemaValue(parameter),
      )
      .map(([drawn, presence, second]) => ({ parameter, ...drawn, presence, second })),
  );
  const method = fc.oneof({ arbitrary: fc.constant(op.method), weight: 12 }, { arbitrary: fc.constantFrom(...METHODS.filter((m) => m !== op.method)), weight: 1 });
  return fc.tuple(fc.tuple(...perParameter), method, keyKind, bodyFor(op)).map(([values, chosenMethod, kind, body]) => {
    const request: GeneratedRequest = { op, method: chosenMethod, pathValues: {}, query: [], headers: {}, keyKind: kind, mutations: [], ...body };
    // fast-check prints a counterexample with this: the curl line, not the whole operation object.
    Object.defineProperty(request, fc.toStringMethod, { value: () => `${curlOf(request)} [${request.mutations.join('; ') || 'no mutation'}]` });
    if (body.mutation) request.mutations.push(body.mutation);
    if (chosenMethod !== op.method) request.mutations.push(`method ${chosenMethod}`);
    for (const { parameter, value, mutation, presence, second } of values) {
      if (mutation) request.mutations.push(`${parameter.name}: ${mutation}`);
      if (parameter.in === 'path') {
        request.pathValues[parameter.name] = presence === 'missing' ? '' : value;
        if (presence === 'missing') request.mutations.push(`${parameter.name}: empty path segment`);
        continue;
      }
      if (presence === 'missing') {
        if (parameter.required) request.mutations.push(`${parameter.name}: missing`);
        continue;
      }
      if (parameter.in === 'header') {
        // A header cannot carry every code point: odd values go as their URI encoding.
        request.headers[parameter.name] = /^[\t\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value);
        continue;
      }
      request.query.push([parameter.name, value]);
      if (presence === 'twice') {
        request.query.push([parameter.name, second]);
        request.mutations.push(`${parameter.name}: twice`);
      }
    }
    return request;
  });
}

// ---------------------------------------------------------------------------------------------
// Sending and checking

function urlOf(request: GeneratedRequest): string {
  const path = request.op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(request.pathValues[name] ?? ''));
  const query = request.query.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  return `${gateway.url}/v1${path}${query ? `?${query}` : ''}`;
}

function headersOf(request: GeneratedRequest): Record<string, string> {
  const headers: Record<string, string> = { ...request.headers };
  const key = keys[request.keyKind];
  if (key !== undefined) headers['X-API-Key'] = key;
  if (request.contentType) headers['Content-Type'] = request.contentType;
  return headers;
}

/** Long values are cut in reports (the replay line reproduces them exactly). */
const short = (text: string) => (text.length > 120 ? `${text.slice(0, 60)}…(${text.length} chars)…${text.slice(-20)}` : text);

function curlOf(request: GeneratedRequest): string {
  const headers = Object.entries(headersOf(request)).map(([name, value]) => ` -H '${name}: ${name === 'X-API-Key' ? `${value} (a ${request.keyKind} key)` : short(value)}'`).join('');
  const body = request.body === undefined ? '' : ` --data-binary '${short(request.body)}'`;
  return `curl -i -X ${request.method} '${short(urlOf(request))}'${headers}${body}`;
}

/** Error strings the document lists for a response (quoted in its description). */
function documentedErrors(response: any): string[] {
  return [...String(response?.description ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
}

/** Whether the request is invalid by the document alone (so it must be refused with a 4xx). */
function invalidByDocument(request: GeneratedRequest): string | null {
  if (request.method !== request.op.method) return `method ${request.method} is not documented for ${request.op.path}`;
  for (const parameter of request.op.parameters) {
    if (parameter.in === 'path') {
      const value = request.pathValues[parameter.name] ?? '';
      if (value === '' || !satisfies(parameter.schema, value)) return `path ${parameter.name}=${JSON.stringify(value.slice(0, 40))}`;
      continue;
    }
    if (parameter.in === 'header') continue; // If-None-Match: any value is a valid (non-matching) one
    const values = request.query.filter(([name]) => name === parameter.name).map(([, value]) => value);
    if (values.length === 0 && parameter.required) return `${parameter.name} missing`;
    if (values.length === 1 && !satisfies(parameter.schema, values[0]!)) return `${parameter.name}=${JSON.stringify(values[0]!.slice(0, 40))}`;
  }
  const bodySchema = request.op.op.requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(request.body ?? '');
    } catch {
      return 'body is not JSON';
    }
    if (!validatorFor(bodySchema, 'request')(parsed)) return 'body outside the request schema';
  }
  return null;
}

async function send(request: GeneratedRequest): Promise<{ status: number; headers: Headers; text: string; body: any }> {
  // fetch cannot send a body with GET (the method mutation of POST /decks/details): it is dropped.
  const sent = request.method === 'GET' ? undefined : request.body;
  const response = await fetch(urlOf(request), { method: request.method, headers: headersOf(request), body: sent });
  const text = await response.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

async function checkOne(request: GeneratedRequest): Promise<void> {
  const r = await send(request);
  const where = `${curlOf(request)}\n  mutations: ${request.mutations.join('; ') || 'none'}\n  → ${r.status} ${r.text.slice(0, 300)}`;
  const opName = `${request.op.method} ${request.op.path}`;
  const seen = statusesSeen.get(opName) ?? new Map<number, number>();
  statusesSeen.set(opName, seen.set(r.status, (seen.get(r.status) ?? 0) + 1));

  expect(r.status, `${where}\nno server error`).toBeLessThan(500);
  expect(r.headers.get('x-content-type-options'), where).toBe('nosniff');
  // Past 16 KiB of request line and headers Node's parser refuses the request before any route.
  if (r.status === 431) {
    const size = urlOf(request).length + Object.entries(headersOf(request)).reduce((sum, [name, value]) => sum + name.length + value.length, 0);
    expect(size, `${where}\nonly an oversized request is refused as too large`).toBeGreaterThan(16_000);
    expect(r.body, where).toEqual({ error: ERRORS.headersTooLarge });
    const response = request.op.op.responses[431] ?? request.op.op.responses.default;
    expect(response, `${where}\nstatus 431 documented for ${opName}`).toBeDefined();
    return;
  }
  // A path not in normal form is refused before any other check (decisions.md): an encoded `/`
  // (a path value with `/` in it) or `//` (an empty value inside the path). fetch has already
  // resolved plain and encoded dot segments.
  if (/\/\/|%2f/i.test(new URL(urlOf(request)).pathname)) {
    expect([r.status, r.body], where).toEqual([400, { error: ERRORS.invalidPath }]);
    expect(documentedErrors(request.op.op.responses[400]), `${where}\n400 documented for ${opName}`).toContain(ERRORS.invalidPath);
    return;
  }
  // An empty, `.` or `..` path segment makes another URL (fetch resolves dot segments).
  const routeExists = Object.values(request.pathValues).every((value) => value !== '' && value !== '.' && value !== '..');
  const methodDocumented = request.method === request.op.method;

  if (!routeExists) {
    // An empty path segment is another route: unknown under /v1, or another operation's path.
    if (r.status === 404) expect(r.body?.error, where).toMatch(/^(Not found|Game not found|Deck not found or not public|Card not found|Search index not found)$/);
    return;
  }
  if (!methodDocumented) {
    expect(r.status, `${where}\nan undocumented method is refused`).toBe(405);
    expect(r.body, where).toEqual({ error: ERRORS.methodNotAllowed });
    const documented = request.op.op.responses[405] ?? request.op.op.responses.default;
    expect(documentedErrors(documented), `${where}\n405 documented for ${opName}`).toContain(ERRORS.methodNotAllowed);
    return;
  }

  // The status is documented for the operation, with its content type and body schema.
  const response = request.op.op.responses[r.status] ?? request.op.op.responses.default;
  expect(response, `${where}\nstatus ${r.status} documented for ${opName}`).toBeDefined();
  const contentType = r.headers.get('content-type')?.split(';')[0]?.trim();
  if (r.status !== 304 && r.text !== '') {
    expect(Object.keys(response.content ?? {}), `${where}\ncontent type documented`).toContain(contentType);
    const schema = response.content[contentType!]?.schema;
    if (contentType === 'application/json' && schema) {
      const validate = validatorFor(schema);
      expect(validate(r.body), `${where}\nbody valid: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    }
  }
  // A text export never writes a line break (or another control character) that came from data.
  if (r.status === 200 && contentType === 'text/plain') {
    expect(hasControlCharacter(r.text.replaceAll('\n', '')), `${where}\nno control character but line breaks`).toBe(false);
    // No deck here has a sideboard: such a line could only come from FORGED_LINES.
    expect(r.text.split('\n').filter((line) => /^(\/\/|#) Sideboard$|^4 Fake/.test(line)), `${where}\nno forged line`).toEqual([]);
  }
  if (r.status >= 400) {
    expect(r.body, where).toBeTypeOf('object');
    expect(Object.keys(r.body).filter((k) => k !== 'error' && k !== 'detail'), where).toEqual([]);
    const documented = documentedErrors(response);
    if (documented.length > 0) expect(documented, `${where}\nerror string documented`).toContain(r.body.error);
  }

  // Invalid input is refused.
  const invalid = invalidByDocument(request);
  if (invalid) expect(r.status, `${where}\ninvalid by the document (${invalid}): a 4xx`).toBeGreaterThanOrEqual(400);

  // Precedence (decisions.md): 401 → 429 → 403 → 400 (required missing) → 404 (unknown game) → 400.
  if (request.op.keyed) {
    if (request.keyKind === 'missing') return void expect(r.body, where).toEqual({ error: ERRORS.apiKeyRequired });
    if (request.keyKind === 'malformed' || request.keyKind === 'random' || request.keyKind === 'revoked') return void expect(r.body, where).toEqual({ error: ERRORS.invalidApiKey });
    if (request.keyKind === 'exhausted') {
      const window = Math.floor(Date.now() / 900_000);
      // The first request of a new 15-minute window is the one the quota of 1 allows.
      if (r.status !== 429 && !windowsRefilled.has(window)) return void windowsRefilled.add(window);
      return void expect(r.status, where).toBe(429);
    }
    const scope = SCOPED[`${request.op.method.toLowerCase()} ${request.op.path}`];
    if (scope && request.keyKind === 'noScope') return void expect(r.body, where).toEqual({ error: ERRORS.insufficientScope });
  }
  // A repeated parameter is read from its first occurrence; an empty gameId is a missing one.
  const gameId = request.query.find(([name]) => name === 'gameId')?.[1];
  const isGame = (slug: string) => (GAME_SLUGS as readonly string[]).includes(slug);
  if (request.op.path === '/decks/public' || request.op.path === '/decks/changes') {
    if (gameId === undefined || gameId === '') return void expect(r.body, where).toEqual({ error: ERRORS.gameIdRequired });
    if (!isGame(gameId)) return void expect(r.body, where).toEqual({ error: ERRORS.gameNotFound });
  }
  // Card changes: an empty since is a missing one, refused before an unknown game (decisions.md "Card changes").
  const since = request.query.find(([name]) => name === 'since')?.[1];
  if (request.op.path.startsWith('/games/') && request.op.path.endsWith('/changes') && (since === undefined || since === '')) return void expect(r.body, where).toEqual({ error: ERRORS.sinceRequired });
  const slug = request.pathValues.slug;
  if (slug !== undefined && !isGame(slug)) expect(r.body, where).toEqual({ error: ERRORS.gameNotFound });
}

/**
 * This suite as part `index` of `of`: the deep suite's requests are split across files so that
 * they run in processes side by side (one file was the deep suite's longest by far, 340 s of its
 * 345 s in a fresh-clone CI run, on one core while the other had finished). Each part starts its
 * own gateway and environment and draws its own random requests; `file` is what a failure's
 * replay line runs.
 */
export function openApiRequestSuite(part: { index: number; of: number; file: string }): void {
  beforeAll(async () => {
    // test/setup/validate-responses.ts would hold every response until afterEach (tens of thousands
    // here, some of a megabyte); this file validates each answer against the document as it comes.
    responseValidation.enabled = false;
    env = await startDeckEnv({ digimon: 60, gundam: 60, 'grand-archive': 60, 'chrono-core': 60 });
    gateway = await startExtraGateway(env, { addressQuota: 1_000_000_000 });
    doc = (await (await fetch(`${gateway.url}/v1/openapi.json`)).json()) as any;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
    requestAjv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    requestAjv.addSchema({ $id: 'doc', components: doc.components }, 'doc');

    operations = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => (p.$ref ? resolveRef(p.$ref) : p)) as Parameter[];
        const keyed = !(Array.isArray(op.security) && op.security.length === 0);
        operations.push({ method: method.toUpperCase(), path, op, parameters, keyed });
      }
    }

    // Keys of every kind the precedence rules tell apart.
    withDb(env.dbFile, (db) => {
      const store = new KeyStore(db);
      keys.full = store.create({ name: 'full', scopes: BOTH_SCOPES, quota: 1_000_000_000 }).key;
      keys.noScope = store.create({ name: 'no scope', quota: 1_000_000_000 }).key;
      keys.exhausted = store.create({ name: 'exhausted', scopes: BOTH_SCOPES, quota: 1 }).key;
      const revoked = store.create({ name: 'revoked', scopes: BOTH_SCOPES }).key;
      store.revoke(revoked);
      keys.revoked = revoked;
    });
    keys.malformed = 'sd_live_NOT-HEX';
    keys.random = `sd_live_${'0123456789abcdef'.repeat(2)}`;
    await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': keys.exhausted! } });

    // Decks: public and private in every game, a deleted one, and tokens of each kind. Names and
    // owners are odd but legal text from the hostile corpus; the third card of each deck gets a
    // hostile zone below.
    const lines: DeckLine[] = [];
    for (const game of GAME_SLUGS) {
      for (let i = 0; i < 6; i++) {
        lines.push({
          id: newId(),
          gameId: game,
          name: `${game} ${i} ${ODD_UNICODE[i % ODD_UNICODE.length]}`,
          ownerDisplayName: PROPERTY_NAMES[i % PROPERTY_NAMES.length]!,
          visibility: i % 3 === 0 ? 'private' : 'public',
          createdAt: '2026-02-01T00:00:00Z',
          updatedAt: `2026-02-0${1 + i}T00:00:00Z`,
          copyCount: i,
          cards: env.catalogs[game]!.slice(i, i + 3).map((card, j) => ({ cardId: card.id, quantity: 1 + j })),
        });
      }
    }
    await importLines(env.dbFile, lines);
    // Zone ids the import grammar refuses but a database may hold (a restored store, an older
    // import): every Object.prototype name, control characters, forged lines. Written into the
    // SQLite file as they are, so every export format meets them.
    const hostileZones = [...PROPERTY_NAMES, FORGED_LINES, ...CONTROL_CHARACTERS.map((c) => `zone${c}x`)];
    withDb(env.dbFile, (db) => {
      const cards = db.prepare<[], { deck_seq: number; position: number }>('SELECT deck_seq, position FROM deck_cards WHERE position = 2 ORDER BY deck_seq').all();
      const setZone = db.prepare('UPDATE deck_cards SET zone_id = ? WHERE deck_seq = ? AND position = ?');
      cards.forEach((card, i) => setZone.run(hostileZones[i % hostileZones.length], card.deck_seq, card.position));
    });
    const gone = newId();
    await importLines(env.dbFile, [{ ...lines[1]!, id: gone }]);
    await importLines(env.dbFile, [{ id: gone, deleted: true }]);
    pools.deckId = [...lines.map((line) => line.id), gone, lines[2]!.id.toUpperCase()];
    pools.token = withDb(env.dbFile, (db) => {
      const decks = new DeckStore(db);
      const priv = lines.filter((line) => line.visibility === 'private');
      return [decks.createShareToken(priv[0]!.id)!, decks.createPrivateLink(priv[1]!.id)!, decks.createShareToken(lines[1]!.id)!, 'st_0000', 'pd_'];
    });
    // Real ETags, so that If-None-Match sometimes matches (304).
    pools['If-None-Match'] = [];
    for (const path of ['/games', '/openapi.json', '/games/digimon/cards?hitsPerPage=7', `/games/gundam/cards/${env.catalogs.gundam![0]!.id}`]) {
      const etag = (await fetch(`${gateway.url}/v1${path}`, { headers: { 'X-API-Key': keys.full! } })).headers.get('etag');
      if (etag) pools['If-None-Match'].push(etag, `W/${etag}`, `"nope", ${etag}`);
    }
    pools.cardId = GAME_SLUGS.flatMap((game) => env.catalogs[game]!.slice(0, 5).map((card) => card.id));

    // Real cursors of every game and several page sizes, and deck listing cursors of several queries.
    pools.cursor = [];
    // Versions to sync card changes from (`since`): every game's, and each gundam rebuild's below.
    pools.since = [];
    for (const game of GAME_SLUGS) {
      for (const hitsPerPage of [1, 7, 100]) {
        const page = (await (await fetch(`${gateway.url}/v1/games/${game}/cards?hitsPerPage=${hitsPerPage}`, { headers: { 'X-API-Key': keys.full! } })).json()) as any;
        if (page.data.cursor) pools.cursor.push(page.data.cursor);
        if (hitsPerPage === 1) pools.since.push(page.data.indexVersion);
      }
    }
    // Cursors of versions no longer current: gundam is rebuilt twice and its first version collected.
    const storage = new FsDriver(env.snapshots);
    for (const seed of [11, 12]) {
      await writeGeneratedCatalog(env.catalogDir, { gundam: 60 }, seed);
      await build({ catalogDir: env.catalogDir, storage, games: ['gundam'], hitsPerPage: [100] });
      await waitFor(async () => {
        const page = (await (await fetch(`${gateway.url}/v1/games/gundam/cards?hitsPerPage=7`, { headers: { 'X-API-Key': keys.full! } })).json()) as any;
        if (pools.cursor!.includes(page.data.cursor)) return false;
        pools.cursor!.push(page.data.cursor);
        pools.since!.push(page.data.indexVersion);
        return true;
      });
    }
    // A cursor of card changes (gundam since its first version, one change a page).
    const changes = (await (await fetch(`${gateway.url}/v1/games/gundam/changes?since=${pools.since[1]}&limit=1`, { headers: { 'X-API-Key': keys.full! } })).json()) as any;
    pools.cursor.push(changes.data.cursor);
    await collectGarbage({ storage, games: ['gundam'], keep: 2, minAgeHours: 0 });
    // Deck change feed cursors (as `since`): the cursor of now, and one a page into the feed.
    for (const query of ['gameId=digimon', 'gameId=gundam']) {
      const feed = (await (await fetch(`${gateway.url}/v1/decks/changes?${query}`, { headers: { 'X-API-Key': keys.full! } })).json()) as any;
      pools.since.push(feed.data.cursor);
    }
    pools.startAfter = [];
    for (const query of ['gameId=digimon&limit=2', 'gameId=gundam&limit=1&sort=copyCount', 'gameId=digimon&limit=1&updatedSince=2026-02-02T00:00:00Z']) {
      const page = (await (await fetch(`${gateway.url}/v1/decks/public?${query}`, { headers: { 'X-API-Key': keys.full! } })).json()) as any;
      pools.startAfter.push(page.data.nextCursor);
    }
  }, 120_000);

  afterAll(async () => {
    responseValidation.enabled = true;
    if (statusesSeen.size > 0) {
      const lines = [...statusesSeen].map(([op, counts]) => `  ${op}: ${[...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`).join(' ')}`);
      console.log(`statuses seen per operation:\n${lines.join('\n')}`);
    }
    await gateway?.close();
    await env?.close();
  });

  describe('requests generated from the served OpenAPI document', () => {
    // Once, in the first part: it reads the document, not the gateway.
    if (part.index === 1) it('finds every operation of the document (the generic card routes, one pair per game, decks, the document itself)', () => {
      const names = operations.map((o) => `${o.method} ${o.path}`);
      for (const name of ['GET /games', 'GET /games/{slug}/cards', 'GET /games/{slug}/cards/{cardId}', 'GET /decks/public', 'GET /decks/changes', 'POST /decks/details', 'GET /decks/{deckId}', 'GET /decks/{deckId}/text', 'GET /openapi.json',
        'GET /search/{searchIndexName}', 'GET /search/{searchIndexName}/{version}/{file}', 'GET /search/{searchIndexName}/{version}/{folder}/{file}']) {
        expect(names).toContain(name);
      }
      for (const game of GAME_SLUGS) expect(names).toContain(`GET /games/${game}/cards`);
      for (const game of ['{slug}', ...GAME_SLUGS]) expect(names).toContain(`GET /games/${game}/changes`);
      expect(names.length).toBe(25);
    });

    it('every answer is documented, valid, never 5xx; invalid input is refused in the contract\'s precedence', async () => {
      const request = fc.constantFrom(...operations).chain(requestFor);
      await fc.assert(fc.asyncProperty(request, checkOne), fcParams(part.file, Math.max(50, Math.round(casesFor(0.725, 100) / part.of))));
    }, 1_500_000);
  });
}
