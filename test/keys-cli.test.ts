/**
 * `snapdeck keys create --quota` and `serve --address-quota`: a quota is announced in the
 * RateLimit headers as an RFC 8941 Integer (at most 15 digits), so a larger one is refused with a
 * clear message and nothing is created.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUOTA_MAX } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli } from './helpers/cli-gateway.ts';
import { getJson, startTestGateway, tempDir } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterAll(() => cleanup?.());

describe('keys create --quota', () => {
  it('refuses a quota the RateLimit headers cannot carry, saying why, and creates nothing', async () => {
    const db = join(dir, 'keys.db');
    for (const value of ['1e+23', String(QUOTA_MAX + 1), '0']) {
      const result = await runCli(['keys', 'create', '--name', 'too-big', '--quota', value, '--db', db]);
      expect(result.code, value).toBe(1);
      expect(result.stdout, value).toBe('');
      expect(result.stderr, value).toContain(`'--quota <n>' argument '${value}' is invalid`);
      if (value === String(QUOTA_MAX + 1)) expect(result.stderr).toContain('must be at most 999999999999999 (15 digits): the RateLimit headers carry the quota as an RFC 8941 integer');
    }
    // Refused while parsing the options: not even the database is created.
    expect(existsSync(db)).toBe(false);
  });

  it('accepts the largest one, and the gateway announces it exactly', async () => {
    const db = join(dir, 'max.db');
    const created = await runCli(['keys', 'create', '--name', 'max', '--quota', String(QUOTA_MAX), '--db', db]);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 3, gundam: 3, 'grand-archive': 3, 'chrono-core': 3 });
    await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1] });
    const gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db });
    try {
      const r = await getJson(`${gateway.base}/games`, { 'X-API-Key': key });
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-policy')).toBe(`"default";q=${QUOTA_MAX};w=900`);
      expect(r.headers.get('ratelimit-limit')).toBe(String(QUOTA_MAX));
      expect(r.headers.get('ratelimit-remaining')).toBe(String(QUOTA_MAX - 1));
    } finally {
      await gateway.close();
    }
  });
});

describe('serve --address-quota', () => {
  it('refuses more than 15 digits before starting', async () => {
    const result = await runCli(['serve', '--port', '0', '--address-quota', '1000000000000000', '--db', join(dir, 'serve.db')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("'--address-quota <n>' argument '1000000000000000' is invalid. must be at most 999999999999999");
  });
});
