import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { startCliGateway } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';

describe('snapdeck serve options', () => {
  it('--address-quota limits GET /v1/decks/{deckId} per client address', async () => {
    const { dir, cleanup } = await tempDir();
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
});
