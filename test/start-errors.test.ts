/**
 * Starting snapdeck where something is in the way says so in one line and exits non-zero, with no
 * stack trace: `npm start` and `snapdeck serve` on a port another process holds, and the folders
 * a process cannot write (a container's volume owned by another user looks like this; the image
 * itself is checked by test/containers/compose.container.ts). Real processes, a real held port.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';
import { killOnExit } from './helpers/processes.ts';
import { ROOT } from './helpers/readme-guide.ts';

let held: Server;
let port: number;
let work: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  work = await tempDir('snapdeck-start-errors-');
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  port = (held.address() as { port: number }).port;
});

afterAll(async () => {
  await new Promise((resolve) => held?.close(resolve));
  await work?.cleanup();
});

/** `npm start` in the checkout, as the README says, with PORT set; resolves once it has exited. */
function npmStart(env: Record<string, string>): Promise<{ code: number | string; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['start'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    killOnExit(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, stdout, stderr, ms: Date.now() - started });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

describe('a port another process holds', () => {
  it('npm start says it in one line, with the PORT=… way out, exit 1, before building anything', async () => {
    const result = await npmStart({ PORT: String(port) });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([`npm start: port ${port} on 127.0.0.1 is taken (another process listens there): pick another, e.g. PORT=${port + 1} npm start`]);
    // npm's own two lines naming the script, nothing of ours: no URL, no build, no stack.
    expect(result.stdout).not.toMatch(/snapdeck is serving|building snapshots|\bat .*\.ts:\d+/);
    // Checked before the catalog, snapshots and demo key (which take seconds on a fresh clone).
    expect(result.ms).toBeLessThan(30_000);
  });

  it('snapdeck serve says it in one line, naming --port and SNAPDECK_PORT, exit 1', async () => {
    await mkdir(join(work.dir, 'store'), { recursive: true });
    const result = await runCli(['serve', '--host', '127.0.0.1', '--port', String(port), '--snapshots', join(work.dir, 'store'), '--store', join(work.dir, 'store')], { timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([`snapdeck serve: port ${port} on 127.0.0.1 is taken (another process listens there): pick another with --port N (or SNAPDECK_PORT=N)`]);
    expect(result.stdout).toBe('');
  });
});

// Root may write any folder whatever its mode: when the suite runs as root, the CLI runs as root
// without the capabilities that override file modes, so the folder's mode decides as it would for
// any other user. (Not another uid: the checkout may sit in a folder only root may enter, as
// suite-on-node.sh's mktemp clone does.)
const DAC_CAPS = '-dac_override,-dac_read_search';
const withoutModeOverride = process.getuid?.() === 0 ? ['setpriv', `--bounding-set=${DAC_CAPS}`, `--inh-caps=${DAC_CAPS}`] : [];

function cliWithoutOverride(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const [command, ...rest] = [...withoutModeOverride, process.execPath, join(ROOT, 'packages', 'cli', 'bin', 'snapdeck.js'), ...args];
  const result = spawnSync(command!, rest, { cwd: work.dir, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' }, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('a folder this process cannot write', () => {
  const user = `uid ${process.getuid?.()}, gid ${process.getgid?.()}`;
  let locked: string;

  beforeAll(async () => {
    locked = join(work.dir, 'locked');
    await mkdir(locked, { mode: 0o555 });
    await chmod(locked, 0o555);
  });

  it('a new database there: one line naming the folder and the user, nothing created', () => {
    const result = cliWithoutOverride(['keys', 'create', '--name', 'a', '--db', join(locked, 'writer.db')]);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([`snapdeck keys create: the database ${join(locked, 'writer.db')}: its folder ${locked} is not writable by this process (${user}): mount a volume there that ${user} may write, or give another folder`]);
    expect(result.stdout).toBe('');
  });

  it('serve --cache-dir there: one line, exit 1, before listening', () => {
    const result = cliWithoutOverride(['serve', '--port', '0', '--snapshots', join(work.dir, 'none'), '--store', join(work.dir, 'none'), '--cache-dir', locked]);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([`snapdeck serve: --cache-dir ${locked} is not writable by this process (${user}): mount a volume there that ${user} may write, or give another folder`]);
  });

  it('build --out there: one line naming the path the filesystem refused and the user', () => {
    const result = cliWithoutOverride(['build', '--catalog', join(ROOT, 'data', 'catalog'), '--out', join(locked, 'out'), '--game', 'chrono-core']);
    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([`snapdeck build: cannot mkdir ${join(locked, 'out')}: permission denied for this process (${user}): make it writable by that user, or mount a volume there it may write`]);
  });
});
