/**
 * `snapdeck serve` writes its access log in batches (gateway/src/log.ts): a line per request is
 * still a line per request, none is lost when the gateway stops, the lines of a quiet gateway
 * still come out within LOG_FLUSH_MS, and a process killed outright loses at most what the buffer
 * held.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINES_FORMATTED_TOGETHER, LOG_BUFFER_BYTES } from '@snapdeck/gateway';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { buildGeneratedSnapshots } from './helpers/catalog.ts';
import { startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir, waitFor } from './helpers/harness.ts';


let dir: string;
let cleanup: () => Promise<void>;
let snapshots: string;
let key: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-log-'));
  snapshots = await buildGeneratedSnapshots(dir, { digimon: 10, gundam: 5, 'grand-archive': 5, 'chrono-core': 5 });
  const db = openDatabase(join(dir, 'snapdeck.db'));
  key = new KeyStore(db).create({ name: 'log', quota: 1_000_000 }).key;
  db.close();
});

afterAll(async () => {
  await cleanup?.();
});

const serve = () => startCliGateway(['--snapshots', snapshots, '--db', join(dir, 'snapdeck.db')], { env: { LOG_LEVEL: 'info' } });

/** `count` requests, 20 at a time, each with its own request id (returned). */
async function send(gateway: CliGateway, count: number, prefix: string): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (let i = 0; i < ids.length; i += 20) {
    await Promise.all(
      ids.slice(i, i + 20).map(async (id) => {
        const response = await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key, 'X-Request-Id': id } });
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }),
    );
  }
  return ids;
}

/** The request ids of the access-log lines written so far (whole lines: one cut short by SIGKILL is not one). */
const logged = (gateway: CliGateway): string[] =>
  gateway
    .output()
    .stdout.split('\n')
    .flatMap((l) => {
      try {
        const line = JSON.parse(l) as { msg?: string; requestId?: string };
        return line.msg === 'request' && line.requestId !== undefined ? [line.requestId] : [];
      } catch {
        return [];
      }
    });

/** Once the process's stdout is closed: everything it wrote has been read (its exit event can come first). */
async function closed(gateway: CliGateway): Promise<void> {
  const stdout = gateway.child.stdout!;
  if (!stdout.closed) await once(stdout, 'close');
}

describe('access log batches', () => {
  it.each([
    [30, 'fewer lines than one batch: all still gathered when SIGTERM comes'],
    [1500, 'many batches'],
  ])('SIGTERM after %i requests: one line for each (%s)', async (count) => {
    const gateway = await serve();
    const ids = await send(gateway, count, `term${count}`);
    expect(await gateway.stop()).toBe(0);
    await closed(gateway);
    expect(logged(gateway).sort()).toEqual(ids.sort());
  });

  it('a quiet gateway writes its lines within LOG_FLUSH_MS, without a full batch or a stop', async () => {
    const gateway = await serve();
    try {
      const ids = await send(gateway, 3, 'quiet');
      await waitFor(async () => ids.every((id) => logged(gateway).includes(id)), 5000, 'the lines of three requests were not written');
    } finally {
      await gateway.stop();
    }
  });

  it('SIGKILL loses at most the lines the buffer held: less than a batch and the access-log lines kept to be formatted (batches are written synchronously, none is in flight)', async () => {
    const gateway = await serve();
    const ids = await send(gateway, 400, 'kill');
    gateway.child.kill('SIGKILL');
    await gateway.exited;
    await closed(gateway);
    const written = new Set(logged(gateway));
    const lost = ids.filter((id) => !written.has(id));
    const lineBytes = gateway.output().stdout.split('\n').find((l) => l.includes('"kill-'))?.length ?? 300;
    expect(lost.length).toBeLessThanOrEqual(Math.ceil(LOG_BUFFER_BYTES / lineBytes) + LINES_FORMATTED_TOGETHER);
  });

  /** test/helpers/log-child.ts's stdout: its info lines' numbers and times, and its last line. */
  function childLines(count: number, end: 'exit' | 'return' | 'throw', flags: Array<'warn' | 'later'> = []) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', join('test', 'helpers', 'log-child.ts'), String(count), end, ...flags], { encoding: 'utf8' });
    expect(child.status).toBe(end === 'throw' ? 1 : 0);
    const lines = child.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { n?: number; msg: string; time: number });
    const numbered = lines.filter((l) => l.n !== undefined);
    return { numbers: numbered.map((l) => l.n), times: numbered.map((l) => l.time), last: lines.at(-1) };
  }

  it.each([
    ['exit', 'process.exit at once'],
    ['return', 'the event loop runs dry'],
    ['throw', 'an uncaught exception'],
  ] as const)('a process that ends without flushing (%s: %s) writes every line, in order', (end, _how) => {
    for (const count of [3, 200, 2000]) {
      expect(childLines(count, end).numbers).toEqual(Array.from({ length: count }, (_, i) => i));
      expect(childLines(count, end, ['later']).numbers).toEqual(Array.from({ length: count }, (_, i) => i));
    }
  });

  it('a warning is written after the lines logged before it, formatted later or not', () => {
    for (const flags of [['warn'], ['warn', 'later']] as const) {
      const { numbers, last } = childLines(20, 'exit', [...flags]);
      expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(last?.msg).toBe('a warning');
    }
  });

  it('a line formatted later carries the time it was logged at, not the time it was formatted', () => {
    // 20 lines are kept (fewer than are formatted together) until the warning, 150 ms later.
    const { times, last } = childLines(20, 'exit', ['warn', 'later']);
    expect(Math.max(...times)).toBeLessThanOrEqual(last!.time - 100);
  });
});
