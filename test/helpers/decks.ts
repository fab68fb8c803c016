/**
 * Shared set-up for the deck endpoint tests (test/decks-*.test.ts): a real gateway over a real
 * SQLite file and snapshots built from a generated catalog, decks imported with importDecks on a
 * separate connection (as the CLI would), and an HTTP client that checks what every response
 * must satisfy:
 *
 * - `X-Content-Type-Options: nosniff` and `Access-Control-Allow-Origin: *` (errors included);
 * - an error is `application/json` `{error}` (plus an optional string `detail`), and no-store;
 * - a JSON body (200 or error) matches the schema /v1/openapi.json gives for that operation and
 *   status (the status must be documented), and an error string is one the document lists;
 * - a 200 JSON body also parses with the contract's zod schema for its endpoint;
 * - a 200 text export is `text/plain; charset=utf-8`, with the raw content and no envelope.
 */
import { join } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { deckChangesResponse, deckDetailsResponse, deckResponse, gaTtsResponse, publicDecksResponse, type GameSlug } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { startGateway, type GatewayConfig, type RunningGateway } from '@snapdeck/gateway';
import { importDecks, openDatabase, type Db, type DeckImportLine, type ImportResult } from '@snapdeck/store';
import { prng, uuidFrom } from '../../scripts/lib/deck-generator.ts';
import { writeGeneratedCatalog } from './catalog.ts';
import { startTestGateway, tempDir, type TestGateway } from './harness.ts';
import { scannedLog } from './secret-scan.ts';

export const TEXT_PLAIN = 'text/plain; charset=utf-8';
export const BOTH_SCOPES = ['decks:browse:public', 'decks:read:public'];

export type Catalogs = Awaited<ReturnType<typeof writeGeneratedCatalog>>;

/** One deck as an import line (decisions.md "Deck import line"). */
export type DeckLine = DeckImportLine;

/** Deterministic UUID v4s, distinct within one generator. */
export function idGenerator(seed: number): () => string {
  const random = prng(seed);
  return () => uuidFrom(random);
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/** Runs `fn` on a separate connection to the gateway's database (like the CLI would). */
export function withDb<T>(file: string, fn: (db: Db) => T): T {
  const db = openDatabase(file);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Imports upserts and deletes (`{id, deleted: true}`) on a separate connection. */
export async function importLines(file: string, lines: Array<DeckLine | { id: string; deleted: true }>): Promise<ImportResult> {
  const db = openDatabase(file);
  try {
    return await importDecks(db, lines.map((line) => JSON.stringify(line)));
  } finally {
    db.close();
  }
}

export interface DeckTestEnv {
  dir: string;
  catalogDir: string;
  snapshots: string;
  dbFile: string;
  gateway: TestGateway;
  catalogs: Catalogs;
  client: DeckClient;
  /** A key with both deck scopes and a large quota. */
  key: string;
  close(): Promise<void>;
}

/** Generated catalog → snapshots → gateway on a fresh database. */
export async function startDeckEnv(counts: Partial<Record<GameSlug, number>>, seed = 7): Promise<DeckTestEnv> {
  const { dir, cleanup } = await tempDir('snapdeck-decks-http-');
  const catalogDir = join(dir, 'catalog');
  const snapshots = join(dir, 'snapshots');
  const dbFile = join(dir, 'snapdeck.db');
  const catalogs = await writeGeneratedCatalog(catalogDir, counts, seed);
  await build({ catalogDir, storage: new FsDriver(snapshots), hitsPerPage: [100] });
  const gateway = await startTestGateway({ snapshots, db: dbFile, pointerTtlMs: 50 });
  const client = await DeckClient.create(gateway.url);
  const key = gateway.createKey({ scopes: BOTH_SCOPES, quota: 1_000_000, name: 'both scopes' });
  return {
    dir,
    catalogDir,
    snapshots,
    dbFile,
    gateway,
    catalogs,
    client,
    key,
    async close() {
      await gateway.close();
      await cleanup();
    },
  };
}

/** A second gateway on the same files with other options (address quota, trustProxy). */
export async function startExtraGateway(env: DeckTestEnv, config: Partial<GatewayConfig>): Promise<RunningGateway & { client: DeckClient }> {
  const gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    snapshots: env.snapshots,
    db: env.dbFile,
    pointerTtlMs: 50,
    log: scannedLog('gateway'),
    ...config,
  });
  return { ...gateway, client: await DeckClient.create(gateway.url) };
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON when the body is JSON, else undefined. */
  body: any;
}

type Operation = { path: '/decks/public' | '/decks/changes' | '/decks/details' | '/decks/{deckId}' | '/decks/{deckId}/text'; method: 'get' | 'post' };

/** Which documented operation a request URL is (null: not a deck operation). */
function operationOf(method: string, pathname: string): Operation | null {
  if (method === 'POST' && pathname === '/v1/decks/details') return { path: '/decks/details', method: 'post' };
  if (method !== 'GET') return null;
  if (pathname === '/v1/decks/public') return { path: '/decks/public', method: 'get' };
  if (pathname === '/v1/decks/changes') return { path: '/decks/changes', method: 'get' };
  if (/^\/v1\/decks\/[^/]+\/text$/.test(pathname)) return { path: '/decks/{deckId}/text', method: 'get' };
  if (/^\/v1\/decks\/[^/]+$/.test(pathname)) return { path: '/decks/{deckId}', method: 'get' };
  return null;
}

/**
 * fetch with the checks of this file's header comment applied to every response. Counts the
 * responses it validated, so a test can tell the checks really ran.
 */
export class DeckClient {
  readonly base: string;
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  validated = 0;

  private constructor(
    readonly url: string,
    readonly doc: any,
  ) {
    this.base = `${url}/v1`;
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
  }

  static async create(url: string): Promise<DeckClient> {
    const response = await fetch(`${url}/v1/openapi.json`);
    expect(response.status).toBe(200);
    return new DeckClient(url, await response.json());
  }

  /** The ajv validator of the document's JSON schema for an operation and status. */
  validator(op: Operation, status: number): ValidateFunction {
    const id = `${op.method} ${op.path} ${status}`;
    let validate = this.validators.get(id);
    if (!validate) {
      const response = this.doc.paths[op.path]?.[op.method]?.responses?.[status];
      expect(response, `${id} is documented in /v1/openapi.json`).toBeDefined();
      const schema = response.content?.['application/json']?.schema;
      expect(schema, `${id} has an application/json schema in /v1/openapi.json`).toBeDefined();
      const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
      validate = this.ajv.compile(resolved);
      this.validators.set(id, validate);
    }
    return validate;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<HttpResult> {
    return this.request('GET', path, undefined, headers);
  }

  async post(path: string, body: string | undefined, headers: Record<string, string> = {}): Promise<HttpResult> {
    return this.request('POST', path, body, { 'Content-Type': 'application/json', ...headers });
  }

  async request(method: string, path: string, body: string | undefined, headers: Record<string, string>): Promise<HttpResult> {
    const url = new URL(`${this.base}${path}`);
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const result: HttpResult = { status: response.status, headers: response.headers, text, body: parsed };
    this.check(method, url, result);
    return result;
  }

  private check(method: string, url: URL, r: HttpResult): void {
    const where = `${method} ${url.pathname}${url.search} → ${r.status} ${r.text.slice(0, 300)}`;
    expect(r.headers.get('x-content-type-options'), where).toBe('nosniff');
    expect(r.headers.get('access-control-allow-origin'), where).toBe('*');
    expect(r.status, where).toBeLessThan(500);
    if (r.status === 304) {
      expect(r.text, where).toBe('');
      return;
    }
    const contentType = r.headers.get('content-type');
    const op = operationOf(method, url.pathname);
    if (r.status >= 400) {
      expect(contentType, where).toBe('application/json');
      expect(r.body, where).toBeTypeOf('object');
      expect(typeof r.body.error, where).toBe('string');
      expect(Object.keys(r.body).filter((k) => k !== 'error' && k !== 'detail'), where).toEqual([]);
      if ('detail' in r.body) expect(typeof r.body.detail, where).toBe('string');
      expect(r.headers.get('cache-control'), where).toBe('no-store');
      if (op) {
        const response = this.doc.paths[op.path][op.method].responses[r.status];
        expect(response, `${where}: status documented`).toBeDefined();
        expect(response.description, `${where}: error string listed in the document`).toContain(`"${r.body.error}"`);
        this.validate(op, r, where);
      }
      return;
    }
    expect(r.status, where).toBe(200);
    if (!op) return;
    if (contentType === TEXT_PLAIN) {
      expect(op.path === '/decks/{deckId}/text' || url.searchParams.get('format') === 'text', where).toBe(true);
      expect(this.doc.paths[op.path][op.method].responses[200].content['text/plain'], `${where}: text/plain documented`).toBeDefined();
      expect(r.text.startsWith('{'), where).toBe(false); // raw content, no {data} envelope
      this.validated += 1;
      return;
    }
    expect(contentType, where).toBe('application/json');
    const format = url.searchParams.get('format') ?? 'json';
    const zod =
      op.path === '/decks/public' ? publicDecksResponse
      : op.path === '/decks/changes' ? deckChangesResponse
      : op.path === '/decks/details' ? deckDetailsResponse
      : format === 'ga-tts' ? gaTtsResponse
      : deckResponse;
    expect(op.path === '/decks/{deckId}/text', `${where}: a text export answered JSON`).toBe(false);
    const parsed = zod.strict().safeParse(r.body);
    expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3))}`).toBe(true);
    this.validate(op, r, where);
  }

  private validate(op: Operation, r: HttpResult, where: string): void {
    const validate = this.validator(op, r.status);
    expect(validate(r.body), `${where}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    this.validated += 1;
  }
}

/** Follows nextCursor to the end (hasMore false); returns every summary and page. */
export async function walkListing(
  client: DeckClient,
  key: string,
  query: Record<string, string>,
  options: { maxPages?: number; between?: (page: number) => Promise<void> } = {},
): Promise<{ decks: Array<{ id: string; gameId: string; createdAt: string; updatedAt: string }>; pages: any[]; lastCursor: string }> {
  const decks: any[] = [];
  const pages: any[] = [];
  let startAfter: string | undefined;
  for (let i = 0; ; i++) {
    if (i >= (options.maxPages ?? 10_000)) throw new Error('the walk does not end');
    const params = new URLSearchParams(query);
    if (startAfter !== undefined) params.set('startAfter', startAfter);
    const r = await client.get(`/decks/public?${params}`, { 'X-API-Key': key });
    expect(r.status, r.text).toBe(200);
    pages.push(r.body.data);
    decks.push(...r.body.data.decks);
    expect(typeof r.body.data.nextCursor).toBe('string');
    startAfter = r.body.data.nextCursor;
    if (!r.body.data.hasMore) return { decks, pages, lastCursor: startAfter! };
    await options.between?.(i);
  }
}
