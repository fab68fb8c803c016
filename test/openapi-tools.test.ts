/**
 * The served OpenAPI document, through the tools partners use on it:
 * Redocly (recommended) and Spectral (spectral:oas) lint it with 0 errors and 0 warnings
 * (redocly.yaml and .spectral.yaml: every rule of both rulesets on, nothing ignored);
 * openapi-typescript generates types from it with which an openapi-fetch client walks the digimon
 * catalog typed with DigimonHit, without a cast, and type-checks.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'node_modules', '.bin');
const run = promisify(execFile);
const LINT_DIR = join(ROOT, '.tmp', 'openapi-lint');
const GENERATED_DIR = join(ROOT, '.tmp', 'openapi-typescript');
// No telemetry, no update check: nothing leaves the machine.
const QUIET = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true', DO_NOT_TRACK: '1', NO_COLOR: '1' };

let gateway: TestGateway;
let cleanup: () => Promise<void>;
let served: string;
let deprecatedDoc: string;

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 30, gundam: 10, 'grand-archive': 10, 'chrono-core': 10 });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1, 25] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  served = (await getJson(`${gateway.url}/v1/openapi.json`)).text;
  // The document a gateway serves when its operator deprecated routes must lint as cleanly.
  deprecatedDoc = JSON.stringify(buildOpenApiDocument({ isDeprecated: (_method, route) => route.startsWith('/v1/games') }));
  expect(deprecatedDoc).toContain('"deprecated":true');
  await mkdir(LINT_DIR, { recursive: true });
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

async function redocly(file: string): Promise<{ totals: { errors: number; warnings: number; ignored: number }; problems: unknown[] }> {
  // Exits 1 when there are errors; the JSON report is on stdout either way.
  const result = await run(join(BIN, 'redocly'), ['lint', '--format=json', file], { cwd: ROOT, env: QUIET, maxBuffer: 64 << 20 }).catch((error) => error);
  return JSON.parse(result.stdout.slice(result.stdout.indexOf('{')));
}

async function spectral(file: string): Promise<Array<{ code: string; severity: number; message: string; path: string[] }>> {
  const report = `${file}.spectral-report.json`;
  await rm(report, { force: true });
  // Exits 1 when there is a result; the JSON report goes to its own file (stdout adds a summary line).
  await run(join(BIN, 'spectral'), ['lint', '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--output', report, '--fail-severity', 'hint', file], {
    cwd: ROOT,
    env: QUIET,
  }).catch(() => undefined);
  return JSON.parse(await readFile(report, 'utf8'));
}

describe('linters', () => {
  it('redocly lint (recommended): 0 errors, 0 warnings, nothing ignored', async () => {
    const file = join(LINT_DIR, 'openapi.json');
    for (const text of [served, deprecatedDoc]) {
      await writeFile(file, text);
      const report = await redocly(file);
      expect(report.problems, JSON.stringify(report.problems, null, 1).slice(0, 2000)).toEqual([]);
      expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
    }
  });

  it('spectral lint (spectral:oas): no result of any severity', async () => {
    const file = join(LINT_DIR, 'spectral.json');
    for (const text of [served, deprecatedDoc]) {
      await writeFile(file, text);
      const results = await spectral(file);
      expect(results.map((r) => `${r.severity} ${r.code} ${r.path.join('.')}: ${r.message}`)).toEqual([]);
    }
  });

  it('the linters do run: they report a document with known problems', async () => {
    const doc = JSON.parse(served);
    delete doc.info.contact;
    delete doc.paths['/games'].get.description;
    doc.paths['/games'].get.responses = { 200: doc.paths['/games'].get.responses[200] };
    const file = join(LINT_DIR, 'broken.json');
    await writeFile(file, JSON.stringify(doc));
    const report = await redocly(file);
    expect((report.problems as Array<{ ruleId: string }>).map((p) => p.ruleId)).toContain('operation-4xx-response');
    const codes = (await spectral(file)).map((r) => r.code);
    expect(codes).toEqual(expect.arrayContaining(['info-contact', 'operation-description']));
  });
});

describe('openapi-typescript + openapi-fetch', () => {
  it('generates types with which the digimon walk is typed with DigimonHit, no cast; the client runs against the gateway', async () => {
    const ast = await openapiTS(JSON.parse(served));
    await mkdir(GENERATED_DIR, { recursive: true });
    await writeFile(join(GENERATED_DIR, 'schema.d.ts'), astToString(ast));
    const usage = join(GENERATED_DIR, 'usage.ts');
    await writeFile(
      usage,
      `import createClient from 'openapi-fetch';
import type { components, paths } from './schema.d.ts';

type DigimonHit = components['schemas']['DigimonHit'];
type GundamHit = components['schemas']['GundamHit'];

/** Walks the digimon catalog with the generated client; returns each hit's english name. */
export async function digimonNames(baseUrl: string, key: string): Promise<string[]> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': key } });
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const { data, error } = await client.GET('/games/digimon/cards', { params: { query: { hitsPerPage: 7, cursor } } });
    if (error) throw new Error(error.error);
    for (const hit of data.data.hits) {
      const typed: DigimonHit = hit;
      names.push(typed.name.english);
      // @ts-expect-error a digimon hit is not a gundam hit (its name is an object)
      const wrong: GundamHit = hit;
      void wrong;
    }
    cursor = data.data.cursor ?? undefined;
  } while (cursor);
  const card = await client.GET('/games/digimon/cards/{cardId}', { params: { path: { cardId: 'BT1-001' } } });
  if (card.data) names.push(card.data.data.AAs.length >= 0 ? card.data.data.name.english : '');
  return names;
}
`,
    );
    const program = ts.createProgram([usage], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      allowImportingTsExtensions: true,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      skipLibCheck: true,
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);

    const key = gateway.createKey();
    const { digimonNames } = (await import(usage)) as { digimonNames: (base: string, key: string) => Promise<string[]> };
    const names = await digimonNames(`${gateway.url}/v1`, key);
    expect(names.length).toBeGreaterThanOrEqual(30);
    expect(names.every((name) => typeof name === 'string' && name.length > 0)).toBe(true);
  });
});

afterAll(async () => {
  await rm(GENERATED_DIR, { recursive: true, force: true });
});
