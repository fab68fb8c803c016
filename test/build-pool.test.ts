/**
 * A defect this guards against: `npm run test:deep` died with a native assertion in require(esm)
 * when Piscina loaded the compression worker (an ES module) in a vitest process that had built many
 * versions. Here: the task file loads with require() alone, and many builds in this one vitest
 * process, each with its own compression pool (every batch through it: inlineCompressionBytes 0),
 * give byte for byte the versions CLI builds of the same catalogs give (small batches compressed on
 * the main thread).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMPRESS_TASK, FsDriver, LOCATION_SECRET_KEY, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { tempDir } from './helpers/harness.ts';
import { runCli } from './helpers/snapshot-read.ts';

const ROUNDS = 12;
const FIXED_CLOCK = join(import.meta.dirname, 'helpers', 'fixed-clock.mjs');

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-build-pool-'));
});

afterAll(async () => {
  await cleanup?.();
});

/** Every file under `root`, by path relative to it, with its bytes. */
async function filesUnder(root: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(root.length + 1), await readFile(path));
  }
  return files;
}

/** A location whose secret is `secret` (cursor keys derive from it: both sides must share it). */
async function locationWithSecret(path: string, secret: Buffer): Promise<string> {
  await mkdir(join(path, '_snapdeck'), { recursive: true });
  await writeFile(join(path, LOCATION_SECRET_KEY), secret);
  return path;
}

describe('compression pool (require(esm) in a busy vitest process)', () => {
  it('the task file loads with require() in a Node whose require() cannot load ES modules', () => {
    const file = fileURLToPath(COMPRESS_TASK.filename);
    const probe = `const task = require(${JSON.stringify(file)})[${JSON.stringify(COMPRESS_TASK.name)}]; if (typeof task !== 'function') throw new Error('no task function');`;
    const result = spawnSync(process.execPath, ['--no-experimental-require-module', '-e', probe], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it(`builds ${ROUNDS} versions of two games in this process, each with its own pool, byte for byte as the CLI does`, { timeout: 300_000 }, async () => {
    const secret = randomBytes(32);
    const inProcess = await locationWithSecret(join(dir, 'in-process'), secret);
    const fromCli = await locationWithSecret(join(dir, 'cli'), secret);
    const catalogs: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const catalogDir = join(dir, `catalog-${round}`);
      await writeGeneratedCatalog(catalogDir, { gundam: 120 + 7 * round, digimon: 90 + 5 * round }, 100 + round);
      catalogs.push(catalogDir);
    }
    // Version ids and timestamps come from the clock: both sides read the same, standing still.
    const clock = Date.now();
    const storage = new FsDriver(inProcess);
    vi.useFakeTimers({ toFake: ['Date'], now: clock });
    const versions: string[] = [];
    try {
      for (const catalogDir of catalogs) {
        const results = await build({ catalogDir, storage, inlineCompressionBytes: 0 });
        expect(results.map((result) => result.game)).toEqual(['digimon', 'gundam']);
        versions.push(...results.map((result) => `${result.game}/${result.version}`));
      }
    } finally {
      vi.useRealTimers();
    }
    expect(new Set(versions).size).toBe(2 * ROUNDS);

    for (const catalogDir of catalogs) {
      const run = await runCli(['build', '--catalog', catalogDir, '--out', fromCli], {
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${FIXED_CLOCK}`.trim(),
        SNAPDECK_TEST_CLOCK_AT: String(clock),
      });
      expect(run.stderr).not.toMatch(/Error/);
      expect(run.status).toBe(0);
    }

    const built = await filesUnder(inProcess);
    const cli = await filesUnder(fromCli);
    expect([...built.keys()].sort()).toEqual([...cli.keys()].sort());
    for (const version of versions) expect([...built.keys()].some((path) => path.startsWith(`${version.replace('/', '/versions/')}/`))).toBe(true);
    const differing = [...built].filter(([path, bytes]) => !bytes.equals(cli.get(path)!)).map(([path]) => path);
    expect(differing).toEqual([]);
  });
});
