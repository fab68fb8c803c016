/**
 * First-day papercuts, through the real CLI: `--version`, `serve` options from
 * SNAPDECK_<OPTION>, the database rule of decisions.md "Running it", a missing bucket on moto,
 * and the AWS SDK's Node-version warning.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build } from '@snapdeck/snapshot';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli, startCliGateway } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

const ROOT = join(import.meta.dirname, '..');
const SDK_WARNING = 'NodeVersionSupportWarning';

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

describe('serve options from SNAPDECK_<OPTION>', () => {
  it('every option of serve names its variable in --help', async () => {
    const help = await runCli(['serve', '--help']);
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' ');
    const flags = [...help.stdout.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]!);
    expect(flags).toContain('store-poll-ms');
    expect(flags.length).toBeGreaterThanOrEqual(14);
    for (const flag of flags) {
      if (flag === 'help') continue;
      expect(text, flag).toContain(`env: SNAPDECK_${flag.toUpperCase().replaceAll('-', '_')}`);
    }
  });

  it('a gateway configured by variables alone serves; a flag wins over its variable', async () => {
    const key = (() => {
      const database = openDatabase(db);
      try {
        return new KeyStore(database).create({ name: 'env', quota: 100 }).key;
      } finally {
        database.close();
      }
    })();
    const env = { SNAPDECK_SNAPSHOTS: snapshots, SNAPDECK_DB: db, SNAPDECK_ADDRESS_QUOTA: '1', SNAPDECK_CACHE_MB: '8' };
    const fromEnv = await startCliGateway([], { env });
    try {
      const cards = await fetch(`${fromEnv.url}/v1/games/digimon/cards?hitsPerPage=10`, { headers: { 'X-API-Key': key } });
      expect(cards.status).toBe(200);
      expect(fromEnv.output().stderr).toContain(`snapshots: ${snapshots}, db: ${db}`);
    } finally {
      await fromEnv.stop();
    }
    // The flags name another quota and a missing snapshot folder is overridden by --snapshots.
    const flagged = await startCliGateway(['--snapshots', snapshots], { env: { ...env, SNAPDECK_SNAPSHOTS: join(dir, 'nowhere') } });
    try {
      expect(flagged.output().stderr).toContain(`snapshots: ${snapshots}, db: ${db}`);
      expect((await fetch(`${flagged.url}/readyz`)).status).toBe(200);
    } finally {
      await flagged.stop();
    }
    // A bad value from a variable is refused like a bad flag, naming the variable.
    const bad = await runCli(['serve'], { env: { ...env, SNAPDECK_PORT: 'eighty' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("value 'eighty' from env 'SNAPDECK_PORT' is invalid");
  });
});

describe('the database rule', () => {
  it('a --db that does not exist is refused naming it, and not created, by every command that reads one', async () => {
    const missing = join(dir, 'typo', 'writer.db');
    const deckId = '4f9d2c1e-8b7a-4c3d-9e2f-1a2b3c4d5e6f';
    for (const args of [
      ['keys', 'list'],
      ['keys', 'revoke', 'key_0123456789ab'],
      ['tokens', 'share', deckId],
      ['tokens', 'private', deckId],
      ['store', 'publish', '--to', join(dir, 'published')],
      ['serve', '--port', '0', '--snapshots', snapshots],
    ]) {
      const run = await runCli([...args, '--db', missing]);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toBe(`snapdeck ${args.slice(0, args[0] === 'serve' ? 1 : 2).join(' ')}: database ${missing} does not exist: give --db the path of an existing database (\`keys create\` and \`decks import\` create one)\n`);
      expect(existsSync(missing)).toBe(false);
      expect(existsSync(join(dir, 'typo'))).toBe(false);
    }
  });

  it('keys create and decks import create it and say so on stderr', async () => {
    const fresh = join(dir, 'fresh-keys.db');
    const created = await runCli(['keys', 'create', '--name', 'first', '--db', fresh]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain(`creating a new database at ${fresh}\n`);
    expect(created.stdout).toMatch(/^sd_live_\S+\n$/);
    const again = await runCli(['keys', 'create', '--name', 'second', '--db', fresh]);
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('creating a new database');

    const decksDb = join(dir, 'fresh-decks.db');
    const empty = join(dir, 'empty.jsonl');
    await writeFile(empty, '');
    const imported = await runCli(['decks', 'import', empty, '--db', decksDb]);
    expect(imported.stderr).toContain(`creating a new database at ${decksDb}\n`);
    expect(existsSync(decksDb)).toBe(true);
  });
});

describe('a missing bucket', () => {
  it('a missing bucket is named, with its endpoint and what to do', async () => {
    const run = await runCli(['build', '--catalog', join(dir, 'catalog'), '--out', 's3://no-such-bucket/snapdeck'], { env: s3.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`bucket no-such-bucket does not exist at ${s3.endpoint}: create it first (\`aws s3 mb s3://no-such-bucket --endpoint-url ${s3.endpoint}\``);
    expect(run.stderr).not.toContain('The specified bucket does not exist');
  });
});

describe("the AWS SDK's Node-version warning", () => {
  it("the AWS SDK's Node-version warning is not printed by the CLI (the README states the supported versions once)", async () => {
    // The test process sets the SDK's switch (test/helpers/s3-server.ts); an empty value is unset for the SDK.
    const env = { ...s3.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: '' };
    const run = await runCli(['build', '--catalog', join(dir, 'catalog'), '--out', s3.newLocation('warning')], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain(SDK_WARNING);
    // The control: the SDK does print it, on this Node (< 22), in a process that does not set the switch.
    const bare = spawnSync(process.execPath, ['--input-type=module', '-e', "import { S3Client } from '@aws-sdk/client-s3'; new S3Client({ region: 'us-east-1' });"], {
      cwd: ROOT,
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: '' },
      encoding: 'utf8',
    });
    if (Number(process.versions.node.split('.')[0]) < 22) expect(bare.stderr).toContain(SDK_WARNING);
    expect(await readFile(join(ROOT, 'README.md'), 'utf8')).toMatch(/^## Supported Node\.js versions$/m);
  });
});
