import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Debian's Chromium for browser tests, driven by playwright-core (which never downloads a
 * browser). When it is not installed, scripts/ci/ensure-chromium.sh installs it (apt-get) first:
 * tests never skip for lack of it.
 */
const ENSURE_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'ci', 'ensure-chromium.sh');

function which(command: string): string | null {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** The path of the chromium executable, installed first when missing. */
export function ensureChromium(): string {
  const found = which('chromium');
  if (found) return found;
  try {
    execFileSync('bash', [ENSURE_SCRIPT], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 600_000 });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`chromium is missing and ${ENSURE_SCRIPT} could not install it:\n${stderr || (error as Error).message}`);
  }
  const installed = which('chromium');
  if (!installed) throw new Error(`chromium is still missing after ${ENSURE_SCRIPT}`);
  return installed;
}

/** Flags for headless Chromium in a container, without any background traffic of its own. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-default-apps'];
