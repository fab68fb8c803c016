/**
 * The /search page ranks and matches as @snapdeck/client does (decisions.md "Search"), with the
 * same code: the contract's query logic, served bundled as /search/engine.js; the page holds none
 * of its own. The gateway runs under tsx, as `npm start` runs it: tsx rewrites functions (a
 * `__name(...)` call in their text), which broke a page that embedded functions' source. Real
 * Digimon and Gundam cards, headless Chromium (Debian's, driven by playwright-core).
 */
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '@snapdeck/store';
import { FsDriver, build } from '@snapdeck/snapshot';
import { importRealCatalog, realDataDir } from '../scripts/import-real.ts';
import { CHROMIUM_ARGS, ensureChromium } from './helpers/chromium.ts';
import { startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';

const raw = realDataDir();

let gateway: CliGateway;
let cleanup: () => Promise<void>;
let browser: Browser;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  if (!raw) return;
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  importRealCatalog({ raw, out: join(dir, 'catalog'), games: ['digimon', 'gundam'] });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), games: ['digimon', 'gundam'], hitsPerPage: [100] });
  openDatabase(join(dir, 'snapdeck.db')).close(); // serve opens an existing database only
  gateway = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--search-quota', '100000'], { tsx: true, timeoutMs: 60_000 });
  browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: CHROMIUM_ARGS });
  page = await (await browser.newContext()).newPage();
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  await page.goto(`${gateway.url}/search`, { waitUntil: 'load' });
  // A function, not a string: the page's policy refuses eval.
  await page.waitForFunction(() => Number((globalThis as unknown as { document: { body: { dataset: Record<string, string | undefined> } } }).document.body.dataset.ready ?? 0) > 0, undefined, { timeout: 60_000 });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop();
  await cleanup?.();
});

const ready = async () => Number((await page.getAttribute('body', 'data-ready')) ?? 0);

/** Types `query` into the page on `game`; the names of the results it shows, and its summary line. */
async function typed(game: string, query: string): Promise<{ names: string[]; summary: string }> {
  if ((await page.inputValue('#game')) !== game) {
    const before = await ready();
    await page.selectOption('#game', game);
    await expect.poll(ready, { timeout: 60_000, interval: 50 }).toBeGreaterThan(before);
  }
  const before = await ready();
  await page.fill('#q', query);
  await expect.poll(ready, { timeout: 60_000, interval: 50 }).toBeGreaterThan(before);
  return { names: await page.$$eval('#results .name', (nodes) => nodes.map((node) => node.textContent ?? '')), summary: (await page.textContent('#summary')) ?? '' };
}

describe.skipIf(!raw)('the /search page, gateway under tsx', () => {
  it('serves scripts that hold no function text rewritten by tsx, and no query logic of their own', async () => {
    const app = await (await fetch(`${gateway.url}/search/app.js`)).text();
    const engine = await (await fetch(`${gateway.url}/search/engine.js`)).text();
    for (const script of [app, engine]) expect(script).not.toContain('__name(');
    expect(app).toContain("from '/search/engine.js'");
    expect(app).not.toMatch(/nameWord|compactId|textHasWords|ID_LIKE/);
    expect(engine).toMatch(/export\s*{[^}]*\bcardSearch\b/);
  });

  it.each([
    ['digimon', 'Agum', 'Agumon'],
    ['digimon', 'Knig', 'Knightmon'],
    ['digimon', 'Digimon Empe', 'Digimon Emperor'],
    ['gundam', 'GQuu', 'GQuuuuuuX'],
    ['gundam', 'G-Fa', 'G-Falcon'],
    ['gundam', '0 Gund', '0 Gundam'],
    ['gundam', '∀ Gund', '∀ Gundam'],
    ['gundam', 'Big-', 'Big-Rang'],
  ])('shows the name being typed first: %s %j → %j', async (game, query, first) => {
    const shown = await typed(game, query);
    expect(shown.names[0], shown.names.slice(0, 5).join(' | ')).toBe(first);
    expect(problems).toEqual([]);
  });

  it.each([
    ['digimon', 'MetalGeymon', 'MetalGreymon'],
    ['digimon', 'Aguon', 'Agumon'],
    ['gundam', 'Gundam Asgtaron', 'Gundam Ashtaron'],
  ])('corrects one typo in a name: %s %j → %j', async (game, query, meant) => {
    const shown = await typed(game, query);
    expect(shown.names[0], shown.names.slice(0, 5).join(' | ')).toBe(meant);
    expect(shown.summary).toContain(`Showing results for ${meant}`);
  });

  it('shows every name one edit from a typo: "Gatmon" → Gatomon and Gaomon', async () => {
    const shown = await typed('digimon', 'Gatmon');
    expect(shown.names.slice(0, 5)).toContain('Gatomon');
    expect(shown.names.slice(0, 5)).toContain('Gaomon');
  });
});
