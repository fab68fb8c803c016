import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: snapdeck runs from its checkout (no build step: TypeScript run as it is). */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface BuildInfo {
  /** The root package.json's version. */
  version: string;
  /**
   * The checkout's commit (12 hex digits, `-dirty` when files differ from it), read from git at
   * run time, since there is no build or pack step to stamp it in; `unknown` outside a checkout
   * or without git.
   */
  commit: string;
  /** The Node.js version running it (`process.version`). */
  node: string;
}

let cached: BuildInfo | undefined;

/** What is running: `snapdeck --version` and the snapdeck_build_info metric. Read once. */
export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  let commit = 'unknown';
  try {
    // --exclude '*': the bare commit even when tags exist.
    commit = execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=12', '--exclude=*'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 }).trim() || 'unknown';
  } catch {
    // Not a checkout (copied files) or no git: the version alone says what runs.
  }
  cached = { version, commit, node: process.version };
  return cached;
}
