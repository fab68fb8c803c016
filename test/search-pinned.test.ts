/**
 * In a browser, a search runs only the engine the contract pins (decisions.md "Search"): behind a
 * proxy that replaces one file of the index (the worker script, the WebAssembly, the entry
 * module), @snapdeck/client bundled into a page and the gateway's /search page both fail with
 * their error, and the replaced scripts never run (each would fetch the proxy's marker path: none
 * did). Untampered, both search through the same proxy, the engine's worker started from the
 * verified bytes (a blob: URL), never from the network. Headless Chromium (Debian's), driven by
 * playwright-core.
 */
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_ENTRY_MODULE, SEARCH_PATHS, SEARCH_INDEX_NAMES } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { browserClientBundle, clientPage } from './helpers/browser-client.ts';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { CHROMIUM_ARGS, ensureChromium } from './helpers/chromium.ts';
import { startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';
import { startTamperingProxy, withMarker, type Tamper, type TamperingProxy } from './helpers/tampering-proxy.ts';

const GAME = 'chrono-core';
const WORKER = 'pagefind-worker.js';
const WASM = 'wasm.en.pagefind';

let gateway: TestGateway;
let proxy: TamperingProxy;
let cleanup: () => Promise<void>;
let browser: Browser;
let card: { id: string; name: string };
/** Another build of the engine's WebAssembly (the one for unknown languages): valid code, not the pinned bytes. */
let otherWasm: Buffer;

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  const cards = await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 10, [GAME]: 20 });
  card = cards[GAME]![4]! as unknown as { id: string; name: string };
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [100] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  const { baseUrl } = ((await (await fetch(`${gateway.url}${SEARCH_PATHS.descriptor(SEARCH_INDEX_NAMES[GAME])}`)).json()) as { data: { baseUrl: string } }).data;
  otherWasm = Buffer.from(await (await fetch(`${gateway.url}${baseUrl}wasm.unknown.pagefind`)).arrayBuffer());
  proxy = await startTamperingProxy(gateway.url, {
    '/__test/client.html': { type: 'text/html; charset=utf-8', body: clientPage('/__test/client.js') },
    '/__test/client.js': { type: 'text/javascript; charset=utf-8', body: await browserClientBundle() },
  });
  browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: CHROMIUM_ARGS });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await gateway?.close();
  await cleanup?.();
});

/** The proxy's replacement for `file` of any index: a marked script, or the other WebAssembly. */
function replacing(file: string): Tamper {
  return (path, body) => (path.endsWith(`/${file}`) ? (file === WASM ? otherWasm : withMarker(file, body)) : undefined);
}

/**
 * A fresh browser context (its own HTTP cache) with a page; the URL of every worker the page
 * starts is kept, and so are its errors and warnings (the engine warns when it falls back from
 * its worker to the page's thread).
 */
async function openPage(): Promise<{ context: BrowserContext; page: Page; workers: string[]; problems: string[] }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const workers: string[] = [];
  const problems: string[] = [];
  page.on('worker', (worker) => workers.push(worker.url()));
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => ['error', 'warning'].includes(message.type()) && problems.push(message.text()));
  return { context, page, workers, problems };
}

interface ClientOutcome {
  ids?: string[];
  error?: string;
  isSnapdeckError?: boolean;
  message?: string;
}

/** searchCards(GAME, query) with the bundled client in a page of the proxy's origin, the API behind the proxy. */
async function clientSearch(query: string): Promise<ClientOutcome & { workers: string[]; problems: string[] }> {
  const { context, page, workers, problems } = await openPage();
  try {
    await page.goto(`${proxy.url}/__test/client.html`);
    await page.waitForFunction(() => (globalThis as { snapdeck?: unknown }).snapdeck !== undefined);
    const outcome = await page.evaluate(
      async ({ game, query }) => {
        const { SnapdeckClient, SnapdeckError } = (globalThis as unknown as { snapdeck: typeof import('@snapdeck/client') }).snapdeck;
        const client = new SnapdeckClient({ baseUrl: `${(globalThis as unknown as { location: URL }).location.origin}/v1` });
        try {
          const found = await client.searchCards(game as 'chrono-core', query, { limit: 5 });
          return { ids: found.hits.map((hit) => hit.id) };
        } catch (error) {
          return { error: (error as Error).name, isSnapdeckError: error instanceof SnapdeckError, message: String((error as Error).message) };
        }
      },
      { game: GAME, query },
    );
    // Anything the page started (a worker) has had its moment to run.
    await page.waitForTimeout(300);
    return { ...outcome, workers, problems };
  } finally {
    await context.close();
  }
}

/** The gateway's /search page through the proxy, on GAME with `query` typed: its status line and the ids shown. */
async function pageSearch(query: string): Promise<{ status: string; ids: string[]; workers: string[]; problems: string[] }> {
  const { context, page, workers, problems } = await openPage();
  const ready = async () => Number((await page.getAttribute('body', 'data-ready')) ?? 0);
  try {
    await page.goto(`${proxy.url}/search`);
    await expect.poll(ready, { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
    await page.selectOption('#game', GAME);
    await expect.poll(ready, { timeout: 30_000, interval: 50 }).toBeGreaterThan(1);
    const before = await ready();
    await page.fill('#q', query);
    await expect.poll(ready, { timeout: 30_000, interval: 50 }).toBeGreaterThan(before);
    await page.waitForTimeout(300);
    return { status: (await page.textContent('#status')) ?? '', ids: await page.$$eval('#results li', (items) => items.map((item) => item.getAttribute('data-id')!)), workers, problems };
  } finally {
    await context.close();
  }
}

describe('@snapdeck/client in a browser', () => {
  it('searches through the proxy untampered, the worker started from verified bytes', async () => {
    proxy.tamper = null;
    const before = proxy.requests.length;
    const outcome = await clientSearch(card.name);
    // The entry file and the WebAssembly are downloaded once, checked, and handed to the engine.
    const downloads = proxy.requests.slice(before).map((path) => path.split('/').pop()!.split('?')[0]);
    expect(downloads.filter((file) => file === WASM || file === 'pagefind-entry.json').sort()).toEqual(['pagefind-entry.json', WASM]);
    expect(outcome.error, outcome.message).toBeUndefined();
    expect(outcome.ids).toContain(card.id);
    expect(outcome.problems).toEqual([]);
    expect(outcome.workers.length).toBeGreaterThan(0);
    for (const url of outcome.workers) expect(url).toMatch(/^blob:/);
  });

  for (const file of [WORKER, WASM, SEARCH_ENTRY_MODULE]) {
    it(`fails with SearchIntegrityError and never runs a replaced ${file}`, async () => {
      proxy.tamper = replacing(file);
      const before = proxy.markers().length;
      const outcome = await clientSearch(card.name);
      proxy.tamper = null;
      expect(outcome.ids, 'the search must fail, not answer').toBeUndefined();
      expect(outcome.error).toBe('SearchIntegrityError');
      expect(outcome.isSnapdeckError).toBe(true);
      expect(outcome.message).toContain(`/${file}`);
      expect(outcome.message).toContain('Search engine file mismatch');
      expect(proxy.markers().slice(before), 'the replaced script ran').toEqual([]);
      for (const url of outcome.workers) expect(url).toMatch(/^blob:/);
    });
  }
});

describe('the /search page', () => {
  it('searches through the proxy untampered, the worker started from verified bytes', async () => {
    proxy.tamper = null;
    const shown = await pageSearch(card.name);
    expect(shown.status).toMatch(/^Version /);
    expect(shown.ids).toContain(card.id);
    expect(shown.problems).toEqual([]);
    expect(shown.workers.length).toBeGreaterThan(0);
    for (const url of shown.workers) expect(url).toMatch(/^blob:/);
  });

  for (const file of [WORKER, WASM, SEARCH_ENTRY_MODULE]) {
    it(`shows an error and never runs a replaced ${file}`, async () => {
      proxy.tamper = replacing(file);
      const before = proxy.markers().length;
      const shown = await pageSearch(card.name);
      proxy.tamper = null;
      expect(shown.ids, 'the search must fail, not answer').toEqual([]);
      expect(shown.status).toContain(`/${file} is not the engine file this page runs`);
      expect(proxy.markers().slice(before), 'the replaced script ran').toEqual([]);
      for (const url of shown.workers) expect(url).toMatch(/^blob:/);
    });
  }
});
