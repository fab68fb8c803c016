import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
export { freePort } from '../../scripts/lib/free-port.ts';

const CI_SCRIPTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'ci');

/**
 * Makes sure `command` runs (`command ...versionArgs` exits 0), running scripts/ci/`script`
 * (which installs the Debian package with apt-get) when it does not: tests never skip for lack
 * of a server. Idempotent; quiet when the command is there.
 */
export function ensureInstalled(command: string | (() => string), versionArgs: string[], script: string): void {
  // A function is asked again after the install (where the command is may depend on it).
  const commandNow = typeof command === 'string' ? () => command : command;
  const runs = () => spawnSync(commandNow(), versionArgs, { stdio: 'ignore' }).status === 0;
  if (runs()) return;
  const path = join(CI_SCRIPTS, script);
  try {
    execFileSync('bash', [path], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`${commandNow()} is missing and ${path} could not install it:\n${stderr || (error as Error).message}`);
  }
  if (!runs()) throw new Error(`${commandNow()} is still missing after ${path}`);
}

const children = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Kills the child (SIGKILL) if this test process exits first, so no server outlives a run. */
export function killOnExit(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of children) c.kill('SIGKILL');
    });
  }
}

/**
 * Stops a server child: SIGCONT first (a paused server would not act on SIGTERM before the
 * fallback), then SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited.
 */
export async function stopProcess(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGCONT');
    child.kill('SIGTERM');
  });
}
