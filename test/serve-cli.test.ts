import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { openDatabase } from '@snapdeck/store';
import { CLI, startCliGateway } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';

describe('snapdeck serve options', () => {
  it('--address-quota limits GET /v1/decks/{deckId} per client address', async () => {
    const { dir, cleanup } = await tempDir();
    openDatabase(join(dir, 'db.sqlite')).close();
    const gateway = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'db.sqlite'), '--address-quota', '2'], {
      env: { LOG_LEVEL: 'silent' },
    });
    try {
      const deck = `${gateway.url}/v1/decks/3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b`;
      expect((await fetch(deck)).status).toBe(404);
      expect((await fetch(deck)).status).toBe(404);
      const limited = await fetch(deck);
      expect(limited.status).toBe(429);
      expect(await limited.json()).toEqual({ error: ERRORS.rateLimitExceeded });
      expect(limited.headers.get('ratelimit-policy')).toBe('"default";q=2;w=900');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await gateway.stop();
      await cleanup();
    }
  });

  it('--trust-proxy alone trusts one proxy: the rightmost X-Forwarded-For entry is the client', async () => {
    const { dir, cleanup } = await tempDir();
    openDatabase(join(dir, 'db.sqlite')).close();
    const gateway = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'db.sqlite'), '--address-quota', '1', '--trust-proxy']);
    try {
      const deck = `${gateway.url}/v1/decks/3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b`;
      const from = (forwarded: string) => fetch(deck, { headers: { 'X-Forwarded-For': forwarded } });
      expect((await from('198.51.100.1, 203.0.113.1')).status).toBe(404);
      expect((await from('198.51.100.2, 203.0.113.1')).status).toBe(429);
      expect((await from('198.51.100.1, 203.0.113.2')).status).toBe(404);
    } finally {
      await gateway.stop();
      await cleanup();
    }
  });

  it('--trust-proxy takes a whole number of hops and nothing else', () => {
    const run = spawnSync(process.execPath, [CLI, 'serve', '--trust-proxy', 'yes'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("option '--trust-proxy [hops]' argument 'yes' is invalid. must be a whole number (0 or more)");
  });
});
