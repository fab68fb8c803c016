/**
 * @snapdeck/client as partners get it. `npm run pack:client`'s tarball is installed
 * into an empty project under the system's temporary folder (no node_modules of this checkout
 * reachable); there a plain Node ESM script walks cards and syncs decks from a real gateway, a
 * CommonJS require() gets the documented error, `tsc --strict` accepts a typed consumer and
 * rejects a wrong one, and headless Chromium walks cards with the package's build served by this
 * test (the browser once refused the client's fetch: "Illegal invocation"). The gateway's access
 * log names the client and its version; the packaged build and the workspace source agree.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as workspaceClient from '@snapdeck/client';
import { startGateway, type RunningGateway } from '@snapdeck/gateway';
import { FsDriver, build } from '@snapdeck/snapshot';
import { installIntoEmptyProject } from '../scripts/pack-client/checks.ts';
import { BROWSER_BROTLI_TARGET, packClient, type PackedClient } from '../scripts/pack-client/pack.ts';
import { REQUIRE_MESSAGE, ROOT, workspaceManifest } from '../scripts/pack-client/stage.ts';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { CHROMIUM_ARGS, ensureChromium } from './helpers/chromium.ts';
import { BOTH_SCOPES, idGenerator, importLines, iso, type DeckLine } from './helpers/decks.ts';
import { tempDir } from './helpers/harness.ts';
import { KeyStore, openDatabase } from '@snapdeck/store';

let dir: string;
let cleanup: () => Promise<void>;
let gateway: RunningGateway;
let base: string;
let key: string;
let packed: PackedClient;
let consumer: string;
let version: string;
let digimonIds: string[];
let deckIds: string[];
const logLines: Array<{ msg?: string; client?: string; route?: string }> = [];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-client-package-'));
  const catalogs = await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 40, gundam: 5, 'grand-archive': 5, 'chrono-core': 5 });
  digimonIds = catalogs.digimon!.map((card) => card.id);
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1, 1000] });
  const db = join(dir, 'snapdeck.db');
  gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    snapshots: join(dir, 'snapshots'),
    db,
    pointerTtlMs: 100,
    log: pino({ level: 'info' }, { write: (line: string) => logLines.push(JSON.parse(line)) }),
  });
  base = `${gateway.url}/v1`;
  const keys = openDatabase(db);
  key = new KeyStore(keys).create({ name: 'partner', scopes: BOTH_SCOPES, quota: 100_000 }).key;
  keys.close();
  const nextId = idGenerator(25);
  const decks: DeckLine[] = Array.from({ length: 60 }, (_, i) => ({
    id: nextId(),
    gameId: 'digimon',
    name: `Deck ${i}`,
    ownerDisplayName: 'someone',
    visibility: 'public',
    createdAt: iso(Date.parse('2026-03-01T00:00:00.000Z') + i * 1000),
    updatedAt: iso(Date.parse('2026-03-02T00:00:00.000Z') + i * 1000),
    cards: [{ cardId: digimonIds[i % 10]!, quantity: 1, zoneId: 'main' }],
  }));
  await importLines(db, decks);
  deckIds = decks.map((deck) => deck.id);

  version = (await workspaceManifest()).version;
  packed = await packClient(join(dir, 'packs'), dir);
  ({ dir: consumer } = await installIntoEmptyProject(packed.tarball));
}, 300_000);

afterAll(async () => {
  await gateway?.close();
  if (consumer) await rm(consumer, { recursive: true, force: true });
  await cleanup?.();
});

const sorted = (values: string[]) => [...values].sort();

describe('the packed @snapdeck/client', () => {
  it('holds compiled ESM, source map, types, README, LICENSE and CHANGELOG; no TypeScript source, no test, no dependency, no path into the workspace', async () => {
    expect(packed.files).toEqual(
      sorted([
        'CHANGELOG.md', 'LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.js.map', 'dist/require.cjs',
        ...['cards', 'client', 'contract', 'decks', 'errors', 'http', 'index', 'search', 'search-indexes', 'sync-cards', 'sync-decks', 'types', 'version'].map((name) => `dist/${name}.d.ts`),
      ]),
    );
    expect(packed.files.filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
    expect(packed.files.filter((file) => /test/.test(file))).toEqual([]);
    const installed = join(consumer, 'node_modules', '@snapdeck', 'client');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@snapdeck/client', version, type: 'module', sideEffects: false, engines: { node: '>=20' } });
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.peerDependencies).toBeUndefined();
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', require: './dist/require.cjs', import: './dist/index.js', default: './dist/index.js' });
    for (const file of await readdir(join(installed, 'dist'))) {
      if (file.endsWith('.map')) continue;
      const text = await readFile(join(installed, 'dist', file), 'utf8');
      expect(text, file).not.toContain(ROOT);
      expect(text, file).not.toMatch(/@snapdeck\/contract|from ['"]zod['"]|\.ts['"]/);
      expect(text, file).not.toMatch(/['"]node:/);
    }
    expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toBe(await readFile(join(ROOT, 'packages', 'client', 'LICENSE'), 'utf8'));
    expect(manifest.license).toBe('MIT');
    expect(await readFile(join(installed, 'CHANGELOG.md'), 'utf8')).toContain(`## ${version}`);
  });

  it('meets the Targets: installs with no warning, publish --dry-run is clean, the browser walk is small, tsc --strict types a consumer and rejects a wrong one', () => {
    expect(packed.installWarnings).toEqual([]);
    expect(packed.publishWarnings).toEqual([]);
    expect(packed.browser.brotli).toBeGreaterThan(1000);
    expect(packed.browser.brotli).toBeLessThanOrEqual(BROWSER_BROTLI_TARGET);
    expect(packed.typed.stdout + packed.typed.stderr).toBe('');
    expect(packed.typed.status).toBe(0);
    expect(packed.wrong.status).not.toBe(0);
    expect(packed.wrong.stdout).toMatch(/consumer\.ts\(\d+,\d+\): error TS\d+: Argument of type '\{ english: string; \}'/);
  });

  it('a plain Node ESM script outside the repository walks cards and syncs decks from a real gateway, and names itself in the access log', async () => {
    const script = `import { SnapdeckClient } from '@snapdeck/client';
const client = new SnapdeckClient({ baseUrl: process.env.SNAPDECK_URL, apiKey: process.env.SNAPDECK_KEY });
const ids = [];
for await (const hit of client.walkCards('digimon', { hitsPerPage: 7 })) ids.push(hit.id);
const sync = client.syncDecks('digimon');
const decks = [];
for await (const event of sync) if (event.type === 'upsert') decks.push(event.deck.id);
const exported = Object.keys(await import('@snapdeck/client')).sort();
console.log(JSON.stringify({ ids, decks, checkpoint: sync.checkpoint, version: SnapdeckClient.version, exported, from: import.meta.resolve('@snapdeck/client') }));
`;
    await writeFile(join(consumer, 'walk.mjs'), script);
    const before = logLines.length;
    // Asynchronously: the gateway answering it runs in this process.
    const run = await promisify(execFile)(process.execPath, ['walk.mjs'], { cwd: consumer, encoding: 'utf8', env: { ...process.env, SNAPDECK_URL: base, SNAPDECK_KEY: key } });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout);
    expect(result.from).toBe(`file://${join(consumer, 'node_modules', '@snapdeck', 'client', 'dist', 'index.js')}`);
    expect(result.ids).toHaveLength(digimonIds.length);
    expect(sorted(result.ids)).toEqual(sorted(digimonIds));
    expect(sorted(result.decks)).toEqual(sorted(deckIds));
    expect(typeof result.checkpoint).toBe('string');
    // The packaged build and the workspace source agree: same version, same exports.
    expect(result.version).toBe(version);
    expect(workspaceClient.SnapdeckClient.version).toBe(version);
    expect(result.exported).toEqual(Object.keys(workspaceClient).sort());

    const requests = logLines.slice(before).filter((line) => line.msg === 'request');
    // 6 card pages (40 hits, 7 a page); the deck feed's cursor of now, 2 listing pages (60 decks,
    // 50 a page), 2 details calls, the feed from that cursor
    expect(requests).toHaveLength(12);
    for (const line of requests) expect(line.client).toBe(`@snapdeck/client/${version}`);
  });

  it('the access log keeps an X-Client that is a product/version token, and drops any other value', async () => {
    const sent = ['curl/8.5', 'x'.repeat(101), 'evil {"keyId":"k"}', 'a b', '', `@snapdeck/client/${version}`];
    const before = logLines.length;
    for (const value of sent) {
      const response = await fetch(`${base}/games`, { headers: { 'X-API-Key': key, 'X-Client': value } });
      expect(response.status).toBe(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const logged = logLines.slice(before).filter((line) => line.msg === 'request').map((line) => line.client ?? null);
    expect(logged).toEqual(['curl/8.5', null, null, null, null, `@snapdeck/client/${version}`]);
  });

  it('a CommonJS require() fails with the documented error; import() from CommonJS works', () => {
    const required = spawnSync(process.execPath, ['-e', "require('@snapdeck/client')"], { cwd: consumer, encoding: 'utf8' });
    expect(required.status).not.toBe(0);
    expect(required.stderr).toContain(REQUIRE_MESSAGE);
    const imported = spawnSync(process.execPath, ['-e', "import('@snapdeck/client').then((m) => console.log(m.SnapdeckClient.version))"], { cwd: consumer, encoding: 'utf8' });
    expect(imported.stderr).toBe('');
    expect(imported.stdout.trim()).toBe(version);
  });

  describe('in headless Chromium', () => {
    let browser: Browser;
    let server: Server;
    let origin: string;

    beforeAll(async () => {
      const dist = join(consumer, 'node_modules', '@snapdeck', 'client', 'dist');
      const page = `<!doctype html><meta charset="utf-8"><title>walk</title>
<script type="module">
import { SnapdeckClient } from './client/index.js';
const client = new SnapdeckClient({ baseUrl: ${JSON.stringify(base)}, apiKey: ${JSON.stringify(key)} });
try {
  const ids = [];
  for await (const hit of client.walkCards('digimon', { hitsPerPage: 7 })) ids.push(hit.id);
  window.outcome = { ids, version: SnapdeckClient.version };
} catch (error) {
  window.outcome = { error: String(error) };
}
</script>`;
      // The page and the package's build (as installed) from this server; the API from the gateway.
      server = createServer(async (request, response) => {
        const url = request.url ?? '/';
        if (url === '/') return response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
        if (url === '/favicon.ico') return response.writeHead(204).end();
        const file = /^\/client\/([\w.-]+\.js(?:\.map)?)$/.exec(url)?.[1];
        if (!file) return response.writeHead(404).end();
        response.writeHead(200, { 'Content-Type': file.endsWith('.map') ? 'application/json' : 'text/javascript' }).end(await readFile(join(dist, file)));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await chromium.launch({ executablePath: ensureChromium(), headless: true, args: CHROMIUM_ARGS });
    }, 300_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => server?.close(resolve));
    });

    it("walks a game's cards from the gateway with the package's browser build", async () => {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      const before = logLines.length;
      await page.goto(origin);
      await page.waitForFunction(() => (globalThis as { outcome?: unknown }).outcome !== undefined, undefined, { timeout: 60_000 });
      const outcome = await page.evaluate(() => (globalThis as unknown as { outcome: { ids?: string[]; version?: string; error?: string } }).outcome);
      expect(outcome.error).toBeUndefined();
      expect(problems).toEqual([]);
      expect(outcome.version).toBe(version);
      expect(outcome.ids).toHaveLength(digimonIds.length);
      expect(sorted(outcome.ids!)).toEqual(sorted(digimonIds));
      const requests = logLines.slice(before).filter((line) => line.msg === 'request' && line.route !== 'unmatched');
      expect(requests).toHaveLength(6);
      for (const line of requests) expect(line.client).toBe(`@snapdeck/client/${version}`);
      await page.close();
    });
  });
});
