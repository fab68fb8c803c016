/**
 * Client-side search (decisions.md "Search"): every version's index is built with it,
 * packed into a few objects, served by the gateway under /v1/search (no key, per-address limit,
 * immutable files, ETag/304, brotli/gzip for text), searched from Node by @snapdeck/client, kept
 * while its version is and removed by gc with it.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, GAMES, SEARCH_ENGINE, SEARCH_ENTRY_MODULE, SEARCH_FIELDS, SEARCH_FUZZY_ENGINE, SEARCH_FUZZY_MODULE, SEARCH_MODULE_SHA256, SEARCH_PATHS, facetValues } from '@snapdeck/contract';
import { SearchIntegrityError, SnapdeckClient, SnapdeckError } from '@snapdeck/client';
import { FsDriver, SEARCH_TABLE_FILE, build, collectGarbage, decodeSearchTable, layout, listSizes, readPointer } from '@snapdeck/snapshot';
import { startGateway, type RunningGateway } from '@snapdeck/gateway';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, tempDir, waitFor } from './helpers/harness.ts';
import { scannedLog } from './helpers/secret-scan.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const COUNTS = { digimon: 60, gundam: 30, 'grand-archive': 30, 'chrono-core': 20 } as const;
const digimon = GAMES.find((g) => g.slug === 'digimon')!;

let dir: string;
let cleanup: () => Promise<void>;
let gateway: RunningGateway;
let cards: Awaited<ReturnType<typeof writeGeneratedCatalog>>;
let storage: FsDriver;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  cards = await writeGeneratedCatalog(join(dir, 'catalog'), COUNTS);
  storage = new FsDriver(join(dir, 'snapshots'));
  await build({ catalogDir: join(dir, 'catalog'), storage, hitsPerPage: [100] });
  gateway = await startGateway({ port: 0, host: '127.0.0.1', snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db'), pointerTtlMs: 50, searchQuota: 100_000, log: scannedLog('gateway') });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

/** The path of every file a version's index holds, as its search table lists them. */
const searchFileNames = async (game: string, version: string) => decodeSearchTable((await storage.get(layout.file(game, version, SEARCH_TABLE_FILE)))!.body).files.map((file) => file.path);

const descriptorOf = async (name: string) => getJson(`${gateway.url}${SEARCH_PATHS.descriptor(name)}`);

describe('GET /v1/search/{searchIndexName}', () => {
  it('describes each game\'s current index, without a key, cached like GET /games', async () => {
    for (const game of GAMES) {
      const r = await descriptorOf(game.searchIndexName);
      expect(r.status, game.slug).toBe(200);
      const current = (await readPointer(storage, layout.pointer(game.slug)))!.version;
      expect(r.body.data).toEqual({
        name: game.searchIndexName, gameId: game.slug, version: current, engine: 'pagefind', engineVersion: '1.6.0',
        baseUrl: `/v1/search/${game.searchIndexName}/${current}/`, facets: SEARCH_FIELDS[game.slug].facets,
      });
      expect(r.headers.get('cache-control')).toBe('public, max-age=3600');
      expect(r.headers.get('vary')).toBe('Accept-Encoding');
      expect(r.headers.get('ratelimit-limit')).toBe('100000');
      const again = await fetch(`${gateway.url}${SEARCH_PATHS.descriptor(game.searchIndexName)}`, { headers: { 'If-None-Match': r.headers.get('etag')! } });
      expect(again.status).toBe(304);
    }
  });

  it('answers 404 Search index not found for a name that is no public game\'s index', async () => {
    for (const name of ['snapdeck_chrono_core_playtest_cards', 'digimon', 'snapdeck_digimon_card', 'x'.repeat(300)]) {
      const r = await descriptorOf(name);
      expect(r.status, name).toBe(404);
      expect(r.body).toEqual({ error: ERRORS.searchIndexNotFound });
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
  });
});

describe('GET /v1/search/{searchIndexName}/{version}/{file}', () => {
  it('serves text files compressed and binary chunks as stored, immutable, with ETag and 304', async () => {
    const base = `${gateway.url}${(await descriptorOf(digimon.searchIndexName)).body.data.baseUrl}`;
    const entry = await fetch(`${base}pagefind.js`, { headers: { 'Accept-Encoding': 'br' } });
    expect(entry.status).toBe(200);
    expect(entry.headers.get('content-encoding')).toBe('br');
    expect(entry.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(entry.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await entry.text()).length).toBeGreaterThan(10_000);
    const gz = await fetch(`${base}pagefind-entry.json`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const meta = JSON.parse(await gz.text());
    expect(meta.version).toBe('1.6.0');
    expect(meta.languages.en.page_count).toBe(COUNTS.digimon);
    const wasm = await fetch(`${base}wasm.en.pagefind`, { headers: { 'Accept-Encoding': 'br, gzip' } });
    expect(wasm.status).toBe(200);
    expect(wasm.headers.get('content-encoding')).toBeNull();
    expect(wasm.headers.get('content-type')).toBe('application/octet-stream');
    const etag = wasm.headers.get('etag')!;
    expect((await fetch(`${base}wasm.en.pagefind`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
  });

  it('answers 404 for a file, version or index that is not there', async () => {
    const { version } = (await descriptorOf(digimon.searchIndexName)).body.data;
    for (const path of [
      `/v1/search/${digimon.searchIndexName}/${version}/nope.js`,
      `/v1/search/${digimon.searchIndexName}/2020-01-01T00-00-00-000Z-abcdef/pagefind.js`,
      `/v1/search/${digimon.searchIndexName}/not-a-version/pagefind.js`,
      `/v1/search/snapdeck_chrono_core_playtest_cards/${version}/pagefind.js`,
      `/v1/search/${GAMES[1]!.searchIndexName}/${version}/pagefind.js`,
    ]) {
      const r = await getJson(`${gateway.url}${path}`);
      expect(r.status, path).toBe(404);
      expect(r.body, path).toEqual({ error: ERRORS.searchIndexNotFound });
    }
  });

  it('stores the index in a few objects per version, whatever the engine writes', async () => {
    for (const game of GAMES) {
      const { version } = (await readPointer(storage, layout.pointer(game.slug)))!;
      const keys = [...(await listSizes(storage, layout.versionPrefix(game.slug, version))).keys()];
      const search = keys.filter((key) => /\/search[.]/.test(key));
      expect(search.length, game.slug).toBeLessThanOrEqual(4);
      const manifest = JSON.parse(Buffer.from((await storage.get(layout.manifest(game.slug, version)))!.body).toString('utf8'));
      for (const key of search) expect(Object.keys(manifest.files), key).toContain(key.slice(layout.versionPrefix(game.slug, version).length));
    }
  });
});

describe('@snapdeck/client searchCards and searchIndex', () => {
  it('finds a card by its name and by its id, with facet counts, and reports the version searched', async () => {
    const client = new SnapdeckClient({ baseUrl: `${gateway.url}/v1` });
    const card = cards.digimon![7]!;
    const name = (card.name as { english: string }).english;
    const byName = await client.searchCards('digimon', name, { limit: 20 });
    const current = (await readPointer(storage, layout.pointer('digimon')))!.version;
    expect(byName.version).toBe(current);
    expect(byName.hits.map((h) => h.id)).toContain(card.id);
    const byId = await client.searchCards('digimon', card.id, { limit: 1 });
    expect(byId.hits[0]!.id).toBe(card.id);
    expect(byId.hits[0]!.name.english).toBe(name);
    // Counted only when asked: counting costs the engine a scan per hit.
    expect(byName.facets).toBeUndefined();
    const all = await client.searchCards('digimon', '', { limit: 5, facets: true });
    expect(all.total).toBe(COUNTS.digimon);
    const sets = all.facets!.setId!;
    const expected = new Map<string, number>();
    for (const c of cards.digimon!) for (const v of facetValues(c.setId)) expected.set(v, (expected.get(v) ?? 0) + 1);
    expect(new Map(Object.entries(sets))).toEqual(expected);
    const [someSet, count] = [...expected][0]!;
    const filtered = await client.searchCards('digimon', '', { filters: { setId: someSet }, limit: 1000 });
    expect(filtered.total).toBe(count);
    expect(filtered.hits.every((h) => h.setId === someSet)).toBe(true);
  });

  it("fetches every file of the index with the client's own fetch (a proxy agent, instrumentation)", async () => {
    const seen: string[] = [];
    const client = new SnapdeckClient({
      baseUrl: `${gateway.url}/v1`,
      fetch: (input, init) => {
        seen.push(input instanceof Request ? input.url : String(input));
        return fetch(input, init);
      },
    });
    const card = cards.digimon![3]!;
    const found = await client.searchCards('digimon', (card.name as { english: string }).english, { limit: 3, facets: true });
    expect(found.hits.length).toBeGreaterThan(0);
    // The engine's own files, not only the descriptor and the modules the client reads itself.
    for (const file of [/pagefind-entry\.json/, /\.pf_meta$/, /\/index\/[\w-]+\.pf_index$/, /\/filter\/[\w-]+\.pf_filter$/, /\/fragment\/[\w-]+\.pf_fragment$/]) {
      expect(seen.some((url) => file.test(url)), `${file} through the client's fetch`).toBe(true);
    }
  });

  it('runs no engine file but the one the contract pins: a changed pagefind.js, WebAssembly or minisearch.js is refused, never run', async () => {
    const g = globalThis as { tamperedModuleRan?: boolean };
    // Node starts no web worker: the browser's are in search-pinned.test.ts.
    for (const file of [SEARCH_ENTRY_MODULE, 'wasm.en.pagefind', SEARCH_FUZZY_MODULE]) {
      // Anything between the client and the index (a CDN, a proxy) serving other code for the file.
      const tampering: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        if (!String(input).endsWith(`/${file}`)) return response;
        return new Response(`globalThis.tamperedModuleRan = true;\n${await response.text()}`, { status: 200 });
      };
      const client = new SnapdeckClient({ baseUrl: `${gateway.url}/v1`, fetch: tampering });
      // A query with a typo loads the fuzzy name matcher too.
      const refused = await client.searchCards('digimon', 'zzqxv', { limit: 1 }).catch((error: unknown) => error);
      expect(refused, file).toBeInstanceOf(SearchIntegrityError);
      expect(refused, file).toBeInstanceOf(SnapdeckError);
      expect(refused, file).toMatchObject({ error: 'Search engine file mismatch', method: 'GET', url: expect.stringMatching(new RegExp(`^${gateway.url}/v1/search/.+/${file.replaceAll('.', '[.]')}$`)) });
      expect((refused as SearchIntegrityError).detail, file).toContain(`expected ${SEARCH_MODULE_SHA256[file as keyof typeof SEARCH_MODULE_SHA256]}`);
      expect(g.tamperedModuleRan, file).toBeUndefined();
    }
    // The same client untampered searches (the check is not what fails).
    const plain = new SnapdeckClient({ baseUrl: `${gateway.url}/v1` });
    expect((await plain.searchCards('digimon', 'zzqxv', { limit: 1 })).version).toMatch(/./);
  });

  it('pins exactly the code files the build emits, from the engines package.json pins', async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies[SEARCH_ENGINE.name]).toBe(SEARCH_ENGINE.version);
    expect(manifest.dependencies[SEARCH_FUZZY_ENGINE.name]).toBe(SEARCH_FUZZY_ENGINE.version);
    const base = `${gateway.url}${(await descriptorOf(digimon.searchIndexName)).body.data.baseUrl}`;
    const emitted = new Map<string, string>();
    for (const file of Object.keys(SEARCH_MODULE_SHA256)) {
      const response = await fetch(`${base}${file}`, { headers: { 'Accept-Encoding': 'identity' } });
      expect(response.status, file).toBe(200);
      emitted.set(file, createHash('sha256').update(Buffer.from(await response.arrayBuffer())).digest('hex'));
    }
    expect(Object.fromEntries(emitted)).toEqual(SEARCH_MODULE_SHA256);
    // Every file of an index that runs as code is pinned: its scripts and its WebAssembly.
    const { version } = (await readPointer(storage, layout.pointer('digimon')))!;
    const code = (await searchFileNames('digimon', version)).filter((path) => /\.(?:js|mjs|wasm|pagefind)$/.test(path));
    expect(code.sort()).toEqual(Object.keys(SEARCH_MODULE_SHA256).sort());
  });

  it('keeps serving version A to a client that opened it while a rebuild publishes B; gc removes A with its version', async () => {
    const client = new SnapdeckClient({ baseUrl: `${gateway.url}/v1` });
    const a = await client.searchIndex('gundam');
    const card = cards.gundam![3]!;
    // Rebuild with one card renamed: a new version.
    const renamed = cards.gundam!.map((c) => (c.id === card.id ? { ...c, name: 'Zzyzx Renamed Frame' } : c));
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'catalog', 'gundam.jsonl'), renamed.map((c) => JSON.stringify(c)).join('\n') + '\n');
    const [built] = await build({ catalogDir: join(dir, 'catalog'), storage, games: ['gundam'], hitsPerPage: [100] });
    expect(built!.version).not.toBe(a.version);
    await waitFor(async () => (await descriptorOf(a.descriptor.name)).body.data.version === built!.version, 5000, 'the gateway never saw version B');
    const b = await client.searchIndex('gundam');
    expect(b.version).toBe(built!.version);
    // A (opened before) still answers from A's files; B sees the change.
    const fromA = await a.search(card.name as string, { limit: 50 });
    expect(fromA.version).toBe(a.version);
    expect(fromA.hits.map((h) => h.id)).toContain(card.id);
    expect((await a.search('Zzyzx')).total).toBe(0);
    const fromB = await b.search('Zzyzx');
    expect(fromB.hits.map((h) => h.id)).toEqual([card.id]);
    // gc: keep only the current version (no age floor): A's index goes with A.
    await collectGarbage({ storage, games: ['gundam'], keep: 1, minAgeHours: 0 });
    // A gateway re-checks a loaded version at most once per pointer TTL (50 ms here): within that
    // it may still answer from A it has in memory, and after it, 404.
    const goneUrl = `${gateway.url}${SEARCH_PATHS.base(a.descriptor.name, a.version)}pagefind-entry.json`;
    await waitFor(async () => (await getJson(goneUrl)).status === 404, 2000, 'version A was still served after gc');
    const gone = await getJson(goneUrl);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: ERRORS.searchIndexNotFound });
    expect((await getJson(`${gateway.url}${SEARCH_PATHS.base(b.descriptor.name, b.version)}pagefind-entry.json`)).status).toBe(200);
  });
});
