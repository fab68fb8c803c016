import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogInvalidError, FsDriver, build, catalogCheckKey, layout, manifestSchema } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { FaultyDriver } from './helpers/faulty-driver.ts';
import { tempDir } from './helpers/harness.ts';

const cli = join(import.meta.dirname, '..', 'packages', 'cli', 'bin', 'snapdeck.js');

describe('snapdeck build', () => {
  it('fails on a bad card with file:line, field and reason, and publishes nothing', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const catalog = join(dir, 'catalog');
      const cards = await writeGeneratedCatalog(catalog, { gundam: 20, digimon: 20 });
      const lines = cards.digimon!.map((card) => JSON.stringify(card));
      lines[4] = JSON.stringify({ ...cards.digimon![4], playCost: 'three' });
      lines[9] = '{not json';
      lines[12] = JSON.stringify(cards.digimon![0]); // duplicate id
      await writeFile(join(catalog, 'digimon.jsonl'), lines.join('\n') + '\n');

      const storage = new FsDriver(join(dir, 'snapshots'));
      const error = await build({ catalogDir: catalog, storage }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CatalogInvalidError);
      const problems = (error as CatalogInvalidError).problems;
      expect(problems).toContainEqual(expect.objectContaining({ file: join(catalog, 'digimon.jsonl'), line: 5, field: 'playCost' }));
      expect(problems).toContainEqual(expect.objectContaining({ line: 10, field: '(line)' }));
      expect(problems).toContainEqual(expect.objectContaining({ line: 13, field: 'id', reason: expect.stringContaining('duplicate') }));
      // gundam was valid, but nothing at all is published.
      expect(await storage.list('')).toEqual([]);

      const run = spawnSync(process.execPath, [cli, 'build', '--catalog', catalog, '--out', join(dir, 'snapshots')], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`${join(catalog, 'digimon.jsonl')}:5: playCost:`);
      expect(await storage.list('')).toEqual([]);
    } finally {
      await cleanup();
    }
  });

  it('publishes a manifest with checksums, skips internal games, and moves current.json last', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const catalog = join(dir, 'catalog');
      const cards = await writeGeneratedCatalog(catalog, { 'chrono-core': 30 });
      await writeFile(join(catalog, 'chrono-core-playtest.jsonl'), cards['chrono-core']!.map((c) => JSON.stringify(c)).join('\n'));
      const storage = new FsDriver(join(dir, 'snapshots'));
      const recording = new FaultyDriver(storage);
      const written = recording.writes;
      const notices: string[] = [];
      const [result] = await build({ catalogDir: catalog, storage: recording, hitsPerPage: [1, 10], onNotice: (m) => notices.push(m) });
      expect(notices.join('\n')).toContain('chrono-core-playtest');
      expect(await storage.list('chrono-core-playtest/')).toEqual([]);
      // The version's files, then its pointer; then (once it is current) the record of the check.
      expect(written.at(-1)).toBe(catalogCheckKey('chrono-core'));
      expect(written.at(-2)).toBe(layout.pointer('chrono-core'));
      expect(written.at(-3)).toBe(layout.manifest('chrono-core', result!.version));
      const manifest = manifestSchema.parse(JSON.parse(Buffer.from((await storage.get(layout.manifest('chrono-core', result!.version)))!.body).toString()));
      expect(manifest.totalHits).toBe(30);
      expect(manifest.hitsPerPage).toEqual([1, 10]);
      const { createHash } = await import('node:crypto');
      for (const [name, { size, sha256 }] of Object.entries(manifest.files)) {
        const body = (await storage.get(layout.file('chrono-core', result!.version, name)))!.body;
        expect(body.length).toBe(size);
        expect(createHash('sha256').update(body).digest('hex')).toBe(sha256);
      }
    } finally {
      await cleanup();
    }
  });

  it('explains bad usage', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const run = (...args: string[]) => spawnSync(process.execPath, [cli, 'build', '--out', join(dir, 's'), ...args], { encoding: 'utf8' });
      expect(run('--catalog', join(dir, 'missing')).stderr).toMatch(/catalog folder .* does not exist/);
      expect(run('--game', 'pokemon').stderr).toContain('unknown game "pokemon"');
      expect(run('--hits-per-page', '0,5').stderr).toContain('not an integer between 1 and 1000');
      const help = spawnSync(process.execPath, [cli, 'build', '--help'], { encoding: 'utf8' });
      expect(help.stdout).toContain('--hits-per-page');
      expect(await readFile(join(import.meta.dirname, '..', 'package.json'), 'utf8')).toContain('"snapdeck"');
    } finally {
      await cleanup();
    }
  });
});
