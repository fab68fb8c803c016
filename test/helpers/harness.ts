import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '@snapdeck/gateway';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { scannedLog } from './secret-scan.ts';

/** A fresh temporary folder, removed by the returned cleanup. */
export async function tempDir(prefix = 'snapdeck-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export interface TestGateway extends RunningGateway {
  /** `${url}/v1` */
  base: string;
  createKey(options?: { scopes?: string[]; quota?: number; name?: string }): string;
}

/** A real gateway on 127.0.0.1 (random port) over a real SQLite file and snapshot folder. */
export async function startTestGateway(options: { snapshots: string; db: string; pointerTtlMs?: number; cacheBytes?: number }): Promise<TestGateway> {
  const gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    snapshots: options.snapshots,
    db: options.db,
    pointerTtlMs: options.pointerTtlMs ?? 100,
    cacheBytes: options.cacheBytes,
    log: scannedLog('gateway'),
  });
  return {
    ...gateway,
    base: `${gateway.url}/v1`,
    createKey({ scopes = [], quota, name = 'test' } = {}) {
      // Another connection, like the CLI: the gateway must see the key without a restart.
      const db = openDatabase(options.db);
      try {
        return new KeyStore(db).create({ name, scopes, quota }).key;
      } finally {
        db.close();
      }
    },
  };
}

/** GET with a key, returning status, headers and the parsed JSON (or text) body. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** Polls `check` every 25 ms until it is true; throws `what` (or 'timed out') after `ms`. */
export async function waitFor(check: () => Promise<boolean>, ms = 10_000, what = 'timed out'): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(what);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
