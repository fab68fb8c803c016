import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SnapshotReader, layout, readPointer, type StorageDriver } from '@snapdeck/snapshot';

export const cliPath = join(import.meta.dirname, '..', '..', 'packages', 'cli', 'bin', 'snapdeck.js');

/** The version a game's current.json names, or null. */
export async function currentVersionOf(driver: StorageDriver, game: string): Promise<string | null> {
  return (await readPointer(driver, layout.pointer(game)))?.version ?? null;
}

/**
 * Reads the current version of a game the way the gateway does (a fresh SnapshotReader, so the
 * manifest, index checksum and file sizes are checked), walks every page of `hitsPerPage` in all
 * three encodings and looks every card up. Returns the version and the ids in walk order.
 */
export async function readCurrentFully(driver: StorageDriver, game: string, hitsPerPage = 100): Promise<{ version: string; ids: string[] }> {
  const errors: unknown[] = [];
  const reader = new SnapshotReader(driver, { pointerTtlMs: 0, onError: (error) => errors.push(error) });
  const current = await reader.current(game);
  if (!current) throw new Error(`no current version of ${game} (${errors.map(String).join('; ')})`);
  const ids: string[] = [];
  for (let page = 0; page < current.pageCount(hitsPerPage); page++) {
    const body = await current.page(hitsPerPage, page, 'identity');
    const parsed = JSON.parse(Buffer.from(body.bytes).toString()) as { data: { hits: Array<{ id: string }>; totalHits: number } };
    if (parsed.data.totalHits !== current.totalHits) throw new Error('totalHits differs between pages');
    ids.push(...parsed.data.hits.map((hit) => hit.id));
    for (const encoding of ['br', 'gzip'] as const) {
      const encoded = await current.page(hitsPerPage, page, encoding);
      if (encoded.bytes.length === 0) throw new Error(`empty ${encoding} page`);
    }
  }
  for (const id of ids) {
    const card = await current.card(id, 'identity');
    if (!card) throw new Error(`card ${id} of the walk cannot be looked up`);
  }
  return { version: current.version, ids };
}

export interface CliRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the snapdeck CLI in a child process (asynchronously, so several can run at once). */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return run([cliPath, ...args], env);
}

/** Runs a script of test/helpers (e.g. build-child.ts) in a child process, like runCli. */
export function runChild(script: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return run(['--import', 'tsx', join(import.meta.dirname, script), ...args], env);
}

function run(argv: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, {
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}
