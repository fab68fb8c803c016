import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, tempDir } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { cliPath, runCli } from './helpers/snapshot-read.ts';

/** `snapdeck build --out s3://...` and `snapdeck serve --snapshots s3://...`, end to end on moto. */
let s3: S3TestServer;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  s3 = await startS3Server();
  ({ dir, cleanup } = await tempDir('snapdeck-s3cli-'));
});

afterAll(async () => {
  await s3?.stop();
  await cleanup?.();
});

describe('the CLI with an s3:// location', () => {
  it('builds to S3 and serves from S3', async () => {
    const cards = await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 30, gundam: 25 }, 5);
    const location = s3.newLocation('cli');
    const built = await runCli(['build', '--catalog', join(dir, 'catalog'), '--out', location, '--hits-per-page', '10'], s3.env);
    expect(built.status, built.stderr).toBe(0);
    expect(built.stdout).toMatch(new RegExp(`digimon: 30 cards -> version \\S+ \\(\\d+ files, .*0 skipped as already uploaded\\) in .* at ${location}`));
    expect(built.stdout).toContain('gundam: 25 cards');

    const db = join(dir, 'snapdeck.db');
    openDatabase(db).close(); // serve refuses a database that does not exist
    const server = spawn(process.execPath, [cliPath, 'serve', '--port', '0', '--snapshots', location, '--db', db], {
      env: { ...process.env, ...s3.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let stderr = '';
        const timer = setTimeout(() => reject(new Error(`serve did not start:\n${stderr}`)), 20_000);
        server.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /listening on (http:\/\/\S+\/v1)/.exec(stderr);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        server.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${stderr}`)));
      });
      const store = openDatabase(db);
      const key = new KeyStore(store).create({ name: 's3-test', scopes: [] }).key;
      store.close();
      const headers = { 'X-API-Key': key };
      const ids: string[] = [];
      let page = await getJson(`${url}/games/digimon/cards?hitsPerPage=10`, headers);
      expect(page.status).toBe(200);
      for (;;) {
        ids.push(...page.body.data.hits.map((hit: { id: string }) => hit.id));
        if (page.body.data.cursor === null) break;
        page = await getJson(`${url}/games/digimon/cards?hitsPerPage=10&cursor=${encodeURIComponent(page.body.data.cursor)}`, headers);
        expect(page.status).toBe(200);
      }
      expect(ids).toEqual(cards.digimon!.map((card) => card.id).sort());
      const card = await getJson(`${url}/games/gundam/cards/${cards.gundam![3]!.id}`, headers);
      expect(card.status).toBe(200);
      expect(card.body.data.id).toBe(cards.gundam![3]!.id);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => (server.exitCode !== null ? resolve(null) : server.once('exit', resolve)));
    }
  });
});
