/**
 * GET /docs: an interactive reference of the served OpenAPI document,
 * rendered by Swagger UI from assets the gateway serves itself. Opened in headless Chromium
 * (Debian's, driven by playwright-core): every operation of the document is on the page, and the
 * page makes no request that leaves the gateway; "Try it out" works. Screenshots are kept in
 * test-artifacts/ (gitignored).
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { CHROMIUM_ARGS, ensureChromium } from './helpers/chromium.ts';
import { getJson, startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-artifacts');

let gateway: TestGateway;
let cleanup: () => Promise<void>;
let browser: Browser;

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 5, gundam: 5, 'grand-archive': 5, 'chrono-core': 5 });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await gateway?.close();
  await cleanup?.();
});

describe('GET /docs', () => {
  it('serves the page and its assets itself, with a policy that allows nothing from elsewhere', async () => {
    const page = await getJson(`${gateway.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((url) => !url.startsWith('data:'));
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset, 'a path on this gateway').toMatch(/^\/docs\//);
      const r = await fetch(`${gateway.url}${asset}`, { headers: { 'Accept-Encoding': 'br' } });
      expect(r.status, asset).toBe(200);
      expect(r.headers.get('etag'), asset).toMatch(/^"[^"]+"$/);
      expect((await fetch(`${gateway.url}${asset}`, { headers: { 'If-None-Match': r.headers.get('etag')! } })).status, asset).toBe(304);
    }
  });

  it('renders every operation in headless Chromium without one request leaving the gateway', async () => {
    const doc = (await getJson(`${gateway.base}/openapi.json`)).body;
    const operationIds = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).map((op) => op.operationId as string));
    expect(operationIds.length).toBeGreaterThanOrEqual(14);

    const context = await browser.newContext({ viewport: { width: 1280, height: 1800 } });
    const page = await context.newPage();
    const origin = new URL(gateway.url).origin;
    const requests: string[] = [];
    const outside: string[] = [];
    const problems: string[] = [];
    // Anything not for this gateway is recorded and aborted (nothing may reach another host).
    await page.route('**/*', (route) => {
      const url = route.request().url();
      requests.push(url);
      if (new URL(url).origin !== origin) {
        outside.push(url);
        return route.abort();
      }
      return route.continue();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      const response = await page.goto(`${gateway.url}/docs`, { waitUntil: 'load' });
      expect(response?.status()).toBe(200);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      await expect.poll(() => page.locator('.opblock').count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(operationIds.length);
      const rendered = await page.$$eval('.opblock', (blocks) => blocks.map((b) => b.id));
      for (const id of operationIds) expect(rendered.some((r) => r.endsWith(`-${id}`)), `${id} on the page (${rendered.join(', ')})`).toBe(true);
      expect(await page.textContent('.info .title')).toContain('snapdeck API');
      await mkdir(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'docs.png') });

      // The reference works against this gateway: open an operation, try it out, execute it.
      await page.click('[id$="-getOpenApiDocument"] .opblock-summary');
      await page.click('[id$="-getOpenApiDocument"] .try-out__btn');
      await page.click('[id$="-getOpenApiDocument"] .execute');
      const status = '[id$="-getOpenApiDocument"] .live-responses-table tbody .response-col_status';
      await page.waitForSelector(status, { timeout: 15_000 });
      expect((await page.textContent(status))?.trim()).toBe('200');

      await page.screenshot({ path: join(ARTIFACTS, 'docs-try-it-out.png') });
    } finally {
      await context.close();
    }
    expect(outside).toEqual([]);
    expect(requests.length).toBeGreaterThanOrEqual(4);
    expect(requests.every((url) => url.startsWith(origin))).toBe(true);
    expect(problems).toEqual([]);
  });
});
