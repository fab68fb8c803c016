/**
 * Running podman and podman-compose for the container test, on a machine without a registry:
 * scripts/ci/ensure-containers.sh installs them and makes the base images (tagged with the
 * official names, so nothing is pulled), and prints the containers.conf every podman call here
 * runs with. The npm registry setting and CA file of this machine go to the image build only,
 * mounted where npm reads its global configuration (/usr/local/etc/npmrc), so none of it lands in
 * the image.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../helpers/readme-guide.ts';
import { killOnExit } from '../helpers/processes.ts';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `command` to completion (never throws for a non-zero exit); kills it after `timeoutMs`. */
export function run(command: string, args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<Ran> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    killOnExit(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', (error) => (stderr += String(error)));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : -1), stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The machine made ready (quiet when it is); returns the CONTAINERS_CONF file podman needs here. */
export function ensureContainers(): string {
  try {
    return execFileSync('bash', [join(ROOT, 'scripts', 'ci', 'ensure-containers.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).trim();
  } catch (error) {
    throw new Error(`scripts/ci/ensure-containers.sh failed: ${(error as Error).message}`);
  }
}

/**
 * The npm registry setting and CA file of this machine, as `-v` arguments of a build (the npmrc
 * written into `dir`: keep it the same folder from run to run, for the build's layer cache).
 */
export async function npmBuildMounts(dir: string): Promise<string[]> {
  const registry = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
  const cafile = execFileSync('npm', ['config', 'get', 'cafile'], { encoding: 'utf8' }).trim();
  await mkdir(dir, { recursive: true });
  const lines = [`registry=${registry}`];
  const mounts: string[] = [];
  if (cafile && cafile !== 'null' && cafile !== 'undefined') {
    lines.push('cafile=/usr/local/etc/npm-ca.crt');
    mounts.push('-v', `${cafile}:/usr/local/etc/npm-ca.crt:ro`);
  }
  await writeFile(join(dir, 'npmrc'), `${lines.join('\n')}\n`);
  return ['-v', `${join(dir, 'npmrc')}:/usr/local/etc/npmrc:ro`, ...mounts];
}
