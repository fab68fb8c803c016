/**
 * The CLI runs from a bundle of its sources kept in node_modules/.cache (packages/cli/bin/bundle.mjs),
 * which holds absolute paths. A tree at another path sharing those node_modules (a moved clone, a
 * second worktree as bench:compare makes) must get a bundle of its own: the first tree's would run
 * files that are no longer there.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempDir } from './helpers/harness.ts';

const root = resolve(import.meta.dirname, '..');
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-bundle-'));
});
afterAll(async () => cleanup?.());

/**
 * A copy of the packages at `tree`, with this checkout's node_modules except @snapdeck/*, which are
 * its own. One source differs from this checkout's (a comment), so that the copies' bundles are
 * not this checkout's.
 */
function copyTree(tree: string): void {
  cpSync(join(root, 'packages'), join(tree, 'packages'), { recursive: true, filter: (source) => !source.includes('node_modules') });
  cpSync(join(root, 'package.json'), join(tree, 'package.json'));
  appendFileSync(join(tree, 'packages', 'cli', 'src', 'main.ts'), '// a copy\n');
  mkdirSync(join(tree, 'node_modules', '@snapdeck'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry !== '@snapdeck') symlinkSync(join(root, 'node_modules', entry), join(tree, 'node_modules', entry));
  }
  for (const name of readdirSync(join(tree, 'packages'))) symlinkSync(join(tree, 'packages', name), join(tree, 'node_modules', '@snapdeck', name));
}

/** `snapdeck build` of the default catalog with `tree`'s CLI: it starts the compression worker, a file found by its absolute path. */
function build(tree: string) {
  return spawnSync(process.execPath, [join(tree, 'packages', 'cli', 'bin', 'snapdeck.js'), 'build', '--catalog', join(root, 'data', 'catalog'), '--out', join(tree, 'out'), '--game', 'chrono-core'], { encoding: 'utf8' });
}

it('a tree moved away and another at a new path sharing its node_modules each run their own files', () => {
  const first = join(dir, 'first');
  copyTree(first);
  expect(build(first).status).toBe(0);
  rmSync(first, { recursive: true, force: true });

  const second = join(dir, 'second');
  copyTree(second);
  const run = build(second);
  expect(run.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
  expect(run.status).toBe(0);
}, 120_000);
