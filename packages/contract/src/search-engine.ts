/**
 * Runs a version's search engine only as the bytes the contract pins, and fetches a version's
 * files only from the origins a client allows (decisions.md "Search"): the one implementation behind @snapdeck/client's search, in Node and in browsers, and the gateway's
 * /search page, which serves this module bundled as /search/engine.js. It needs fetch, Web Crypto,
 * URL and, in browsers, Blob and Worker: nothing of Node's.
 *
 * Before any of the engine runs, its entry module, its entry file, the WebAssembly that file names
 * and, where the engine would start a web worker, the worker script are downloaded and checked
 * against SEARCH_MODULE_SHA256. The entry module is imported from its verified text after a first
 * line of ours that declares its `fetch` and `Worker`: that fetch answers the entry file and the
 * WebAssembly from the verified bytes (the engine never downloads them itself) and refuses any
 * other WebAssembly or any URL outside the version; that Worker starts the verified worker script
 * (from a blob: URL, with the same answers), never a copy from the network.
 */
import { SEARCH_ENGINE_ENTRY, SEARCH_ENTRY_MODULE, SEARCH_MODULE_SHA256, SEARCH_WORKER_SCRIPT, type SearchCodeFile } from './search.ts';

export type SearchFilesOptions = {
  /**
   * The origins a version's files may come from (`https://api.example.com`: scheme, host and
   * port): a client's own baseUrl's, and any its partner allowed. Any other is refused before
   * anything is fetched from it, and so is a response redirected to one.
   */
  origins: readonly string[];
  /**
   * Fetches each file (a client's `fetch` option, or the global fetch); the engine's own requests
   * (its index chunks) go through it too, except in a browser's web worker, which has its own.
   * An engine is kept per function and version: pass the same function to reuse it.
   */
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  /**
   * The error to throw for a refused file: on an origin not allowed (`origin`), bytes other than
   * the pinned ones (`pin`), or an error status (`status`). `status` is the HTTP status of its
   * response (0: none came, or none was asked for).
   */
  refuse: (kind: 'origin' | 'pin' | 'status', url: string, status: number, detail: string) => Error;
};

type EngineFetch = (input: unknown, init?: RequestInit) => Promise<Response>;
type WorkerConstructor = new (url: string) => unknown;
/** What an engine module's first line declares: its `fetch`, and its `Worker` (none where the engine starts no worker). */
type EngineHooks = { fetch: EngineFetch; Worker: WorkerConstructor | undefined };

/** Where the first line of each engine module finds its hooks, by engine id. */
const HOOKS = Symbol.for('@snapdeck/search engine hooks');
const WASM = /\/wasm\.[^/]*\.pagefind$/;

const hooks = (): Map<string, EngineHooks> => ((globalThis as { [HOOKS]?: Map<string, EngineHooks> })[HOOKS] ??= new Map());
const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const scope = globalThis as { window?: unknown; document?: unknown; Worker?: WorkerConstructor };

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) throw new Error('searching needs Web Crypto (crypto.subtle) to check the engine it downloads: use a secure context (https or localhost)');
  return Array.from(new Uint8Array(await subtle.digest('SHA-256', bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Refuses `url` unless it is on an allowed origin. */
function checkOrigin(url: string, options: SearchFilesOptions, status = 0): void {
  const { origin } = new URL(url);
  if (!options.origins.includes(origin)) throw options.refuse('origin', url, status, `${origin} is not an origin search files are fetched from (${options.origins.join(', ')})`);
}

async function download(url: string, options: SearchFilesOptions): Promise<{ bytes: Uint8Array; status: number }> {
  checkOrigin(url, options);
  // Called as a plain function: a browser's own fetch refuses any other `this` than the window.
  const { fetch: fetchFile } = options;
  const response = await fetchFile(url);
  if (response.redirected && response.url !== '') checkOrigin(response.url, options, response.status);
  if (!response.ok) throw options.refuse('status', url, response.status, `HTTP ${response.status}`);
  return { bytes: new Uint8Array(await response.arrayBuffer()), status: response.status };
}

/** A file of the version at `baseUrl`, when its bytes are the pinned ones. */
async function pinned(file: string, baseUrl: string, options: SearchFilesOptions): Promise<Uint8Array> {
  const url = new URL(file, baseUrl).href;
  const expected = Object.hasOwn(SEARCH_MODULE_SHA256, file) ? SEARCH_MODULE_SHA256[file as SearchCodeFile] : undefined;
  if (expected === undefined) throw options.refuse('pin', url, 0, 'no file of that name is pinned');
  const { bytes, status } = await download(url, options);
  const digest = await sha256Hex(bytes);
  if (digest !== expected) throw options.refuse('pin', url, status, `sha256 ${digest}, expected ${expected}`);
  return bytes;
}

/** The WebAssembly files the engine's entry file names, as the engine picks them (a language's `wasm`, else `unknown`). */
function wasmFiles(entry: Uint8Array, url: string, options: SearchFilesOptions): string[] {
  let languages: unknown;
  try {
    languages = (JSON.parse(decode(entry)) as { languages?: unknown }).languages;
  } catch {
    languages = undefined;
  }
  const names = typeof languages === 'object' && languages !== null ? Object.values(languages).map((index) => `wasm.${String((index as { wasm?: unknown } | null)?.wasm || 'unknown')}.pagefind`) : [];
  if (names.length === 0) throw options.refuse('pin', url, 200, 'it names no language, so no WebAssembly the engine may run');
  return [...new Set(names)];
}

/** Code as a module: a blob: URL in browsers (a page's policy allows `script-src blob:` before `data:`), a data: URL elsewhere (Node imports no blob:). */
async function importCode(code: string): Promise<unknown> {
  if (scope.document === undefined) return import(/* @vite-ignore */ `data:text/javascript;charset=utf-8,${encodeURIComponent(code)}`);
  const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  try {
    return await import(/* @vite-ignore */ url);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** The engine's fetch: the verified files from memory, nothing outside the version, the rest through `options.fetch`. */
function engineFetch(baseUrl: string, served: ReadonlyMap<string, Uint8Array>, options: SearchFilesOptions): EngineFetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), baseUrl);
    const bytes = served.get(url.origin + url.pathname);
    if (bytes !== undefined) return new Response(bytes.slice());
    if (!url.href.startsWith(baseUrl) || WASM.test(url.pathname)) throw options.refuse('pin', url.href, 0, 'not a file the engine may fetch');
    const { fetch: fetchFile } = options;
    return fetchFile(url.href, init);
  };
}

function base64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/**
 * The Worker the engine module gets: whatever URL it names, the verified worker script, started
 * from a blob: URL after a first line that declares the worker's fetch like engineFetch (the
 * verified files carried along, URLs resolved against the version: a blob: worker resolves no
 * relative URL itself).
 */
function pinnedWorker(script: Uint8Array, baseUrl: string, served: ReadonlyMap<string, Uint8Array>): WorkerConstructor {
  const files = Object.fromEntries([...served].map(([url, bytes]) => [url, base64(bytes)]));
  const firstLine = `const fetch = ((base, files, network) => (input, init) => { const url = new URL(input instanceof Request ? input.url : String(input), base); const own = files[url.origin + url.pathname];
if (own !== undefined) return Promise.resolve(new Response(Uint8Array.from(atob(own), (c) => c.charCodeAt(0))));
if (!url.href.startsWith(base) || ${WASM}.test(url.pathname)) return Promise.reject(new Error("refused " + url.href + ": not a file the engine may fetch"));
return network(url.href, init); })(${JSON.stringify(baseUrl)}, ${JSON.stringify(files)}, globalThis.fetch.bind(globalThis));\n`;
  const url = URL.createObjectURL(new Blob([firstLine, script], { type: 'text/javascript' }));
  const Native = scope.Worker!;
  return function PinnedWorker() {
    return new Native(url);
  } as unknown as WorkerConstructor;
}

async function loadEngine(baseUrl: string, options: SearchFilesOptions): Promise<unknown> {
  const entryUrl = new URL(SEARCH_ENGINE_ENTRY, baseUrl).href;
  // The engine starts a worker where window, document and Worker exist (pagefind.js: hasWorkerSupport).
  const startsWorker = scope.window !== undefined && scope.document !== undefined && typeof scope.Worker === 'function';
  const [code, entry, worker] = await Promise.all([
    pinned(SEARCH_ENTRY_MODULE, baseUrl, options),
    download(entryUrl, options).then(({ bytes }) => bytes),
    startsWorker ? pinned(SEARCH_WORKER_SCRIPT, baseUrl, options) : undefined,
  ]);
  const wasm = wasmFiles(entry, entryUrl, options);
  const served = new Map([[entryUrl, entry], ...(await Promise.all(wasm.map(async (file) => [new URL(file, baseUrl).href, await pinned(file, baseUrl, options)] as const)))]);
  const registry = hooks();
  const id = String(registry.size);
  registry.set(id, { fetch: engineFetch(baseUrl, served, options), Worker: worker === undefined ? undefined : pinnedWorker(worker, baseUrl, served) });
  return importCode(`const { fetch, Worker } = globalThis[Symbol.for(${JSON.stringify(HOOKS.description)})].get(${JSON.stringify(id)});\n${decode(code)}\n`);
}

/** Engines loaded (or loading), per fetch function and version base URL. */
const engines = new WeakMap<object, Map<string, Promise<unknown>>>();

/**
 * The engine's module (Pagefind's) for the version at `baseUrl` (absolute, ending in `/`), run
 * only from pinned bytes fetched from an allowed origin; any refused file rejects with
 * `options.refuse`'s error before any of it runs. One instance per fetch function and version
 * (the engine keeps its state in its module).
 */
export const openPinnedEngine = <T>(baseUrl: string, options: SearchFilesOptions): Promise<T> => {
  try {
    checkOrigin(baseUrl, options);
  } catch (error) {
    return Promise.reject(error);
  }
  let opened = engines.get(options.fetch);
  if (opened === undefined) engines.set(options.fetch, (opened = new Map()));
  const kept = opened;
  let engine = kept.get(baseUrl);
  if (engine === undefined) {
    const loading = loadEngine(baseUrl, options);
    kept.set(baseUrl, loading);
    loading.catch(() => kept.get(baseUrl) === loading && kept.delete(baseUrl));
    engine = loading;
  }
  return engine as Promise<T>;
};

/** Another pinned ES module of the version (MiniSearch), imported from its verified text. */
export const importPinnedModule = async <T>(file: string, baseUrl: string, options: SearchFilesOptions): Promise<T> =>
  (await importCode(decode(await pinned(file, baseUrl, options)))) as T;
