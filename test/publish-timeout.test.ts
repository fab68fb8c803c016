import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { runCli } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

/**
 * `--publish` is bounded by `--publish-timeout` (decisions.md "Running it"): with storage frozen
 * (moto SIGSTOPped: connections accepted, nothing answered), the command gives up with exit 1
 * naming the location, the change committed locally, and sends no purge for a change that did
 * not go out.
 */
const TIMEOUT_S = 3;

let s3: S3TestServer;
let dir: string;
let cleanup: () => Promise<void>;
let purgeServer: Server;
let purgeUrl: string;
const purges: string[] = [];

beforeAll(async () => {
  s3 = await startS3Server();
  ({ dir, cleanup } = await tempDir('snapdeck-publish-timeout-'));
  purgeServer = createServer((req, res) => {
    purges.push(`${req.method} ${req.headers['surrogate-key'] ?? ''}`);
    res.end('purged');
  });
  await new Promise<void>((resolve) => purgeServer.listen(0, '127.0.0.1', resolve));
  purgeUrl = `http://127.0.0.1:${(purgeServer.address() as { port: number }).port}/`;
});

afterAll(async () => {
  s3?.resume();
  await s3?.stop();
  await new Promise((resolve) => purgeServer?.close(resolve));
  await cleanup?.();
});

const timed = async (args: string[]) => {
  const started = Date.now();
  const run = await runCli(args, { env: s3.env, timeoutMs: 90_000 });
  return { ...run, seconds: (Date.now() - started) / 1000 };
};

describe('--publish-timeout', () => {
  it('defaults to 60 s, shown in --help of every command that takes --publish', async () => {
    expect(OPERATOR_DEFAULTS.publishTimeoutSeconds).toBe(60);
    for (const command of [['keys', 'create'], ['keys', 'revoke'], ['tokens', 'share'], ['tokens', 'private'], ['decks', 'import']]) {
      const help = await runCli([...command, '--help']);
      expect(help.stdout.replace(/\s+/g, ' '), command.join(' ')).toMatch(/--publish-timeout <seconds>.*\(default: 60\)/);
    }
  });

  it('storage frozen: keys create --publish prints the key, exits 1 within the timeout naming the location, the key committed; keys revoke sends no purge', async () => {
    const db = join(dir, 'writer.db');
    const location = s3.newLocation('timeout');
    // A store already published there: the frozen publish has something to read first.
    const first = await timed(['keys', 'create', '--name', 'first', '--db', db, '--publish', location]);
    expect(first.code, first.stderr).toBe(0);

    s3.pause();
    let created: Awaited<ReturnType<typeof timed>>;
    let revoked: Awaited<ReturnType<typeof timed>>;
    try {
      created = await timed(['keys', 'create', '--name', 'frozen', '--db', db, '--publish', location, '--publish-timeout', String(TIMEOUT_S)]);
      revoked = await timed([
        'keys', 'revoke', first.stdout.trim(), '--db', db, '--publish', location, '--publish-timeout', String(TIMEOUT_S), '--purge', purgeUrl, '--purge-wait', '2',
      ]);
    } finally {
      s3.resume();
    }
    console.log(`storage frozen: keys create --publish exit ${created.code} after ${created.seconds.toFixed(2)} s; keys revoke --publish --purge exit ${revoked.code} after ${revoked.seconds.toFixed(2)} s (--publish-timeout ${TIMEOUT_S})`);

    expect(created.code).toBe(1);
    expect(created.seconds).toBeGreaterThanOrEqual(TIMEOUT_S);
    expect(created.seconds).toBeLessThan(TIMEOUT_S + 10);
    expect(created.stdout).toMatch(/^sd_live_\S+\n$/);
    expect(created.stderr).toContain(`publishing the store to ${location} failed`);
    expect(created.stderr).toContain(`--publish-timeout ${TIMEOUT_S} s`);
    expect(created.stderr).toContain(`The change is committed in ${db}; it goes out with the next publish`);

    expect(revoked.code).toBe(1);
    expect(revoked.seconds).toBeLessThan(TIMEOUT_S + 10);
    expect(revoked.stderr).toContain(`publishing the store to ${location} failed`);
    expect(purges).toEqual([]);

    const list = await runCli(['keys', 'list', '--db', db, '--json']);
    const keys = JSON.parse(list.stdout) as { name: string; revokedAt: string | null }[];
    expect(keys.map((k) => [k.name, k.revokedAt !== null])).toEqual([['first', true], ['frozen', false]]);

    // Storage back: the next publish sends both changes, and a purge after a publish still goes.
    const next = await timed(['keys', 'revoke', created.stdout.trim(), '--db', db, '--publish', location, '--purge', purgeUrl, '--purge-wait', '2']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`published store version`);
    expect(purges).toHaveLength(1);
    expect(purges[0]).toMatch(/^PURGE key_[0-9a-f]+$/);
  }, 120_000);
});
