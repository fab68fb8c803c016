/**
 * GET /search: the card search page, opened in headless Chromium (Debian's,
 * driven by playwright-core). A real card name typed with a typo is found, a facet filter changes
 * the counts, and no request leaves the gateway. Screenshots are kept in test-artifacts/.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_MODELS } from '@snapdeck/contract';
import { FsDriver, build, readCatalog } from '@snapdeck/snapshot';
import { importRealCatalog, realDataDir } from '../scripts/import-real.ts';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { CHROMIUM_ARGS, ensureChromium } from './helpers/chromium.ts';
import { getJson, startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-artifacts');
const GAME = 'gundam';

let gateway: TestGateway;
let cleanup: () => Promise<void>;
let browser: Browser;
let names: string[];

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  const catalogDir = join(dir, 'catalog');
  // The real Gundam cards when ../shared is there, else the generated ones (named like them).
  const raw = realDataDir();
  await writeGeneratedCatalog(catalogDir, { digimon: 30, 'grand-archive': 30, 'chrono-core': 30, ...(raw ? {} : { [GAME]: 300 }) });
  if (raw) importRealCatalog({ raw, out: catalogDir, games: [GAME] });
  const entries = await readCatalog(join(catalogDir, `${GAME}.jsonl`), GAME);
  names = entries.map((e) => CARD_MODELS[GAME].nameOf(JSON.parse(e.card.toString('utf8'))));
  await build({ catalogDir, storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [100] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: CHROMIUM_ARGS });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await cleanup?.();
});

/** Waits until the page has rendered a search started after `before`. */
async function settled(page: Page, before: number): Promise<number> {
  const ready = async () => Number((await page.getAttribute('body', 'data-ready')) ?? 0);
  await expect.poll(ready, { timeout: 30_000, interval: 50 }).toBeGreaterThan(before);
  return ready();
}

/** A name's one-letter typo: its longest word (≥ 6 letters) with one inner letter replaced. */
function withTypo(name: string): string {
  const word = name.split(/[^A-Za-z]+/).sort((a, b) => b.length - a.length)[0]!;
  const i = Math.floor(word.length / 2);
  const typo = word.slice(0, i) + (word[i] === 'x' ? 'z' : 'x') + word.slice(i + 1);
  return name.replace(word, typo);
}

const counts = (page: Page, facet: string) =>
  page.$$eval(`fieldset[data-facet="${facet}"] label`, (labels) => labels.map((l) => `${l.querySelector('.value')!.textContent}=${l.querySelector('.count')!.textContent}`));

describe('GET /search', () => {
  it('serves the page and its assets itself, with a policy that allows nothing from elsewhere', async () => {
    const page = await getJson(`${gateway.url}/search`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    for (const asset of ['/search/app.js', '/search/engine.js', '/search/app.css']) {
      const r = await fetch(`${gateway.url}${asset}`, { headers: { 'Accept-Encoding': 'br' } });
      expect(r.status, asset).toBe(200);
      expect(r.headers.get('content-encoding'), asset).toBe('br');
      expect((await fetch(`${gateway.url}${asset}`, { headers: { 'If-None-Match': r.headers.get('etag')! } })).status, asset).toBe(304);
    }
  });

  it('finds a real card name typed with a typo, filters with counts, and makes no request outside the gateway', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const origin = new URL(gateway.url).origin;
    const outside: string[] = [];
    const problems: string[] = [];
    let requests = 0;
    await page.route('**/*', (route) => {
      const url = route.request().url();
      requests += 1;
      if (new URL(url).origin !== origin) {
        outside.push(url);
        return route.abort();
      }
      return route.continue();
    });
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      expect((await page.goto(`${gateway.url}/search`, { waitUntil: 'load' }))?.status()).toBe(200);
      let ready = await settled(page, 0);
      expect(await page.textContent('#summary')).toBe('30 cards');
      await page.selectOption('#game', GAME);
      ready = await settled(page, ready);
      expect(await page.textContent('#summary')).toBe(`${names.length} cards`);

      // A real name (a word of 6+ letters), one letter wrong.
      const name = names.find((n) => /[A-Za-z]{6,}/.test(n) && names.filter((m) => m === n).length === 1)!;
      const typo = withTypo(name);
      expect(typo).not.toBe(name);
      await page.fill('#q', typo);
      ready = await settled(page, ready);
      const found = await page.$$eval('#results .name', (nodes) => nodes.map((n) => n.textContent));
      expect(found, `"${typo}" finds "${name}"`).toContain(name);
      expect(await page.textContent('#summary')).toContain(`Showing results for ${name}`);
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'search-typo.png') });

      // Every card, then one set: the other facets' counts follow the filter.
      await page.fill('#q', '');
      ready = await settled(page, ready);
      const typesBefore = await counts(page, 'cardType');
      const firstSet = page.locator('fieldset[data-facet="setId"] label').first();
      const setCount = Number(await firstSet.locator('.count').textContent());
      expect(setCount).toBeLessThan(names.length);
      await firstSet.locator('input').check();
      ready = await settled(page, ready);
      expect(await page.textContent('#summary')).toBe(`${setCount} cards`);
      const typesAfter = await counts(page, 'cardType');
      expect(typesAfter).not.toEqual(typesBefore);
      expect(typesAfter.reduce((sum, entry) => sum + Number(entry.split('=').pop()), 0)).toBe(setCount);
      await page.screenshot({ path: join(ARTIFACTS, 'search-filtered.png') });
    } finally {
      await context.close();
    }
    expect(outside).toEqual([]);
    expect(requests).toBeGreaterThanOrEqual(6);
    expect(problems).toEqual([]);
  });
});
