/**
 * First-day papercuts (issue 24 item 5), through the real CLI: `--version`, `serve` options from
 * SNAPDECK_<OPTION>, the database rule of decisions.md "Running it", a missing bucket on moto,
 * and the AWS SDK's Node-version warning.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build } from '@snapdeck/snapshot';
import { openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

const ROOT = join(import.meta.dirname, '..');

let dir: string;
let cleanup: () => Promise<void>;
let s3: S3TestServer;
let snapshots: string;
let db: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-papercuts-'));
  s3 = await startS3Server();
  await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 20, gundam: 10, 'grand-archive': 10, 'chrono-core': 10 });
  snapshots = join(dir, 'snapshots');
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(snapshots), hitsPerPage: [10] });
  db = join(dir, 'snapdeck.db');
  openDatabase(db).close();
});

afterAll(async () => {
  await s3?.stop();
  await cleanup?.();
});

describe('snapdeck --version', () => {
  it('prints the version and the commit of the checkout (and Node.js), exit 0', async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const commit = execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=12', '--exclude=*'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(commit).toMatch(/^[0-9a-f]{12}(-dirty)?$/);
    for (const flag of ['--version', '-V']) {
      const run = await runCli([flag]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`snapdeck ${version} (commit ${commit}, Node.js ${process.version})\n`);
    }
  });
});
