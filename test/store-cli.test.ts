/**
 * `snapdeck store publish|restore`, `--publish` and `serve --store` given bad input, and a writer
 * SIGKILLed during a publish. Every refusal: a clear message, exit 1, nothing changed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, readPointer } from '@snapdeck/snapshot';
import { openDatabase, readPublication, storeLayout } from '@snapdeck/store';
import { runCli, startCliGateway } from './helpers/cli-gateway.ts';
import { deck } from './helpers/deck-db.ts';
import { tempDir } from './helpers/harness.ts';
import { freePort } from './helpers/processes.ts';

let dir: string;
let cleanup: () => Promise<void>;
const unreachable: Record<string, string> = {};

/** Everything under a folder with its bytes: "nothing changed" is this, before and after. */
async function snapshotOf(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string) => {
    for (const entry of await readdir(at, { withFileTypes: true }).catch(() => [])) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) await walk(full);
      else out[full] = readFileSync(full).toString('base64');
    }
  };
  await walk(folder);
  return out;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-store-cli-'));
  Object.assign(unreachable, {
    AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1',
    SNAPDECK_S3_ENDPOINT: `http://127.0.0.1:${await freePort()}`, SNAPDECK_S3_MAX_ATTEMPTS: '1', AWS_EC2_METADATA_DISABLED: 'true',
  });
});
afterAll(async () => cleanup?.());

/** A writer database with a key and two decks, published to a new folder location. */
async function published(name: string): Promise<{ db: string; location: string }> {
  const db = join(dir, `${name}.db`);
  const location = join(dir, `${name}-store`);
  const file = join(dir, `${name}.jsonl`);
  await writeFile(file, [deck(), deck({ visibility: 'private' })].map((d) => JSON.stringify(d)).join('\n'));
  const imported = await runCli(['decks', 'import', file, '--db', db, '--publish', location]);
  expect(imported.code, imported.stderr).toBe(0);
  return { db, location };
}

describe('bad input to the store commands', () => {
  it('store publish: no location, a file as location, no database, unreachable storage', async () => {
    const { db, location } = await published('p');
    const before = await snapshotOf(location);
    const publication = () => JSON.stringify(openDatabaseReadOnly(db));
    const recorded = publication();
    const cases: Array<{ args: string[]; env?: Record<string, string>; message: RegExp }> = [
      { args: ['store', 'publish', '--db', db], env: { SNAPDECK_PUBLISH: '' }, message: /--to LOCATION .* SNAPDECK_PUBLISH/ },
      { args: ['store', 'publish', '--db', db, '--to', db], message: /is a file, not a folder/ },
      { args: ['store', 'publish', '--db', join(dir, 'missing.db'), '--to', location], message: /database \S+missing\.db does not exist/ },
      { args: ['store', 'publish', '--db', db, '--to', 's3://snapdeck-unreachable/x'], env: unreachable, message: /storage unavailable/ },
      { args: ['store', 'publish', '--db', db, '--to', 's3://Bad_Bucket/x'], message: /invalid S3 location/ },
    ];
    for (const c of cases) {
      const result = await runCli(c.args, { env: c.env });
      expect(result.code, c.args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(c.message);
    }
    expect(existsSync(join(dir, 'missing.db'))).toBe(false);
    expect(await snapshotOf(location)).toEqual(before);
    expect(publication()).toBe(recorded);
  });

  it('store publish onto a damaged current version is refused', async () => {
    const { db, location } = await published('damaged');
    const driver = new FsDriver(location);
    const pointer = (await readPointer(driver, storeLayout.pointer))!;
    await writeFile(join(location, storeLayout.manifest(pointer.version)), '{"format": 1, "kind": "snapdeck-store"');
    await runCli(['keys', 'create', '--name', 'x', '--db', db]);
    const before = await snapshotOf(location);
    const result = await runCli(['store', 'publish', '--to', location, '--db', db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/not a valid store manifest/);
    expect(await snapshotOf(location)).toEqual(before);
  });

  it('store restore: no location, a folder with no store, unreachable storage, an existing file, a corrupt version', async () => {
    const { db, location } = await published('r');
    const target = join(dir, 'restored.db');
    const empty = join(dir, 'not-a-store');
    await mkdir(empty, { recursive: true });
    await writeFile(join(empty, 'README.txt'), 'hello');
    const cases: Array<{ args: string[]; env?: Record<string, string>; message: RegExp }> = [
      { args: ['store', 'restore', '--db', target], message: /--from <location>/ },
      { args: ['store', 'restore', '--from', empty, '--db', target], message: /no store has been published at/ },
      { args: ['store', 'restore', '--from', join(dir, 'nowhere'), '--db', target], message: /no store has been published at/ },
      { args: ['store', 'restore', '--from', 's3://snapdeck-unreachable/x', '--db', target], env: unreachable, message: /storage unavailable/ },
      { args: ['store', 'restore', '--from', location, '--db', db], message: /already exists; nothing was changed. Add --force/ },
    ];
    const dbBefore = readFileSync(db);
    for (const c of cases) {
      const result = await runCli(c.args, { env: c.env });
      expect(result.code, c.args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(c.message);
      expect(existsSync(target)).toBe(false);
    }
    expect(readFileSync(db).equals(dbBefore)).toBe(true);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);

    // A segment with one byte changed: refused, nothing written, not even with --force.
    const driver = new FsDriver(location);
    const pointer = (await readPointer(driver, storeLayout.pointer))!;
    const manifest = JSON.parse((await driver.get(storeLayout.manifest(pointer.version)))!.body.toString());
    const segment = join(location, storeLayout.segment('decks', manifest.parts.decks.sha256, 0));
    const bytes = readFileSync(segment);
    bytes[100] = bytes[100]! ^ 0xff;
    await writeFile(segment, bytes);
    const corrupt = await runCli(['store', 'restore', '--from', location, '--db', target, '--force']);
    expect(corrupt.code).toBe(1);
    expect(corrupt.stderr).toMatch(/is damaged: .*does not match its SHA-256/);
    expect(existsSync(target)).toBe(false);
    expect((await readdir(dir)).filter((name) => name.startsWith('.snapdeck-restore-'))).toEqual([]);
  });

  it('--publish to a file refuses before changing anything; a failed publish says the change is committed', async () => {
    const db = join(dir, 'pub.db');
    const asFile = join(dir, 'a-file');
    await writeFile(asFile, 'x');
    const refused = await runCli(['keys', 'create', '--name', 'x', '--db', db, '--publish', asFile]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is a file, not a folder.*Nothing was changed/s);
    expect(refused.stdout).toBe('');
    const unreachableRun = await runCli(['keys', 'create', '--name', 'y', '--db', db, '--publish', 's3://snapdeck-unreachable/x'], { env: unreachable });
    expect(unreachableRun.code).toBe(1);
    expect(unreachableRun.stderr).toMatch(/is created, but publishing the store to .* failed: .*storage unavailable.*goes out with the next publish/s);
    const keys = await runCli(['keys', 'list', '--db', db, '--json']);
    expect(JSON.parse(keys.stdout).map((k: { name: string }) => k.name)).toEqual(['y']);
  });

  it('serve --store: with --db, or a file as location, refuses to start', async () => {
    const file = join(dir, 'plain-file');
    await writeFile(file, 'x');
    const both = await runCli(['serve', '--port', '0', '--store', dir, '--db', join(dir, 'x.db')]);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/either --db FILE .* or --store LOCATION/);
    const notFolder = await runCli(['serve', '--port', '0', '--store', file]);
    expect(notFolder.code).toBe(1);
    expect(notFolder.stderr).toMatch(/is a file, not a folder: a store location is a folder or s3:\/\/bucket\/prefix/);
  });

  it('serve --store on a folder where nothing is published: not ready, keyed endpoints 500, until a store appears', async () => {
    const location = join(dir, 'late-store');
    const gateway = await startCliGateway(['--snapshots', join(dir, 'no-snapshots'), '--store', location, '--store-poll-ms', '200']);
    try {
      const ready = await fetch(`${gateway.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { store: { problem: string } }).store.problem).toMatch(/no store has been published/);
      const keyed = await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': `sd_live_${'0'.repeat(32)}` } });
      expect(keyed.status).toBe(500);
      const created = await runCli(['keys', 'create', '--name', 'late', '--db', join(dir, 'late.db'), '--publish', location]);
      expect(created.code, created.stderr).toBe(0);
      const started = Date.now();
      for (;;) {
        const answer = await fetch(`${gateway.url}/v1/decks/${deck().id}`);
        if (answer.status === 404) break;
        expect(Date.now() - started).toBeLessThan(5000);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await gateway.stop();
    }
  });
});

describe('a writer killed during a publish', () => {
  const killedPublish = (db: string, location: string, at: string) =>
    new Promise<string | number>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join('test', 'helpers', 'publish-child.ts'), db, location, at], { stdio: 'ignore' });
      child.once('exit', (code, signal) => resolve(signal ?? code ?? -1));
    });

  for (const [what, at] of [['mid-upload', 'parts/decks/'], ['after the manifest, before the pointer', 'versions/'], ['right after the pointer, before recording it', 'current.json']] as const) {
    it(`${what}: the previous version stays current (or the new one is whole), and the next publish completes`, async () => {
      const { db, location } = await published(`killed-${at.replace(/\W/g, '')}`);
      const driver = new FsDriver(location);
      const before = (await readPointer(driver, storeLayout.pointer))!.version;
      const file = join(dir, `more-${at.replace(/\W/g, '')}.jsonl`);
      await writeFile(file, Array.from({ length: 300 }, () => JSON.stringify(deck())).join('\n'));
      expect((await runCli(['decks', 'import', file, '--db', db])).code).toBe(0);
      expect(await killedPublish(db, location, at)).toBe('SIGKILL');
      const after = (await readPointer(driver, storeLayout.pointer))!.version;
      if (at === 'current.json') expect(after).not.toBe(before);
      else expect(after).toBe(before);
      const next = await runCli(['store', 'publish', '--to', location, '--db', db]);
      expect(next.code, next.stderr).toBe(0);
      // Killed after the pointer: that version is whole and holds everything; nothing is left to send.
      if (at === 'current.json') expect(next.stdout).toMatch(/already current/);
      else expect(next.stdout).toMatch(/published store version/);
      const restored = join(dir, `restored-${at.replace(/\W/g, '')}.db`);
      expect((await runCli(['store', 'restore', '--from', location, '--db', restored])).stdout).toMatch(/302 decks/);
    });
  }
});

function openDatabaseReadOnly(file: string): unknown {
  const db = openDatabase(file);
  try {
    return readPublication(db, new FsDriver(join(dir, 'p-store')).location);
  } finally {
    db.close();
  }
}

describe('store publish --keep-deck-changes-days', () => {
  it('prunes older deck removals before publishing, and publishes the pruned feed (not a no-op)', async () => {
    const db = join(dir, 'prune.db');
    const location = join(dir, 'prune-store');
    const one = deck();
    const file = join(dir, 'prune.jsonl');
    await writeFile(file, JSON.stringify(one));
    expect((await runCli(['decks', 'import', file, '--db', db, '--publish', location])).code).toBe(0);
    await writeFile(file, JSON.stringify({ id: one.id, deleted: true }));
    expect((await runCli(['decks', 'import', file, '--db', db, '--publish', location])).code).toBe(0);
    // Removals are stamped to the second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const pruned = await runCli(['store', 'publish', '--to', location, '--db', db, '--keep-deck-changes-days', '0']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stderr).toContain('pruned 1 deck removal(s) older than 0 day(s) from the deck change feed');
    expect(pruned.stdout).toMatch(/^published store version \S+ to .*: sent decks/);
    const again = await runCli(['store', 'publish', '--to', location, '--db', db, '--keep-deck-changes-days', '0']);
    expect(again.stdout).toContain('is already current');
    expect(again.stderr).not.toContain('pruned');
  });
});
