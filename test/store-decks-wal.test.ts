/**
 * The writer finds the pages an import changed in its WAL (docs/contributors/store-format.md, "How
 * the writer finds its changed pages"), and whatever another process does to its database, the
 * next publish is right: read from the WAL when nothing was lost, else every page compared (once,
 * with the reason). "Right" is checked three ways after every publish: the decks part it names
 * has the page root a from-scratch build of a byte copy of the database gets (no page log, every
 * page read); the file a reader rebuilds from storage passes `PRAGMA integrity_check` and holds
 * the writer's decks; and no key or token secret is in its bytes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FsDriver, readPointer } from '@snapdeck/snapshot';
import {
  DeckStore, KeyStore, fetchPart, hashSecret, importDecks, openDatabase, publishStore, readStoreManifest, restoreStore, storeLayout,
  type Db, type StorePublishResult,
} from '@snapdeck/store';
import { deck, line } from './helpers/deck-db.ts';
import { tempDir } from './helpers/harness.ts';
import { ensureInstalled } from './helpers/processes.ts';

let dir: string;
let cleanup: () => Promise<void>;
let file: string;
let db: Db;
let driver: FsDriver;
let copies = 0;
const secrets: string[] = [];
const options = { deltaMinBytes: 0 };

const cards = (n: number) => Array.from({ length: 30 }, (_, i) => ({ cardId: `BT${n % 9}-${String(i).padStart(3, '0')}`, quantity: 1 + (i % 4), zoneId: 'main' }));
const some = (count: number, tag: string) => Array.from({ length: count }, (_, i) => deck({ name: `${tag} ${i}`, cards: cards(i), viewCount: (i * 7919) % 1000, visibility: i % 4 === 0 ? 'private' : 'public' }));

function keysAndTokens(tag: string, decks: Array<{ id: string }>): void {
  const keys = new KeyStore(db);
  for (let i = 0; i < 20; i++) {
    const { key, record } = keys.create({ name: `${tag} key ${i}` });
    secrets.push(key, hashSecret(key), record.id);
    if (i % 3 === 0) keys.revoke(record.id);
  }
  const store = new DeckStore(db);
  for (const d of decks) secrets.push(hashSecret(store.createShareToken(d.id, 3600)!), hashSecret(store.createPrivateLink(d.id)!));
}

beforeAll(() => ensureInstalled('sqlite3', ['--version'], 'ensure-sqlite3.sh'));
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-decks-wal-'));
  file = join(dir, 'writer.db');
  driver = new FsDriver(join(dir, 'store'));
  db = openDatabase(file);
  const base = some(3000, 'Base');
  await importDecks(db, base.map(line));
  keysAndTokens('base', base.slice(0, 200));
  expect((await publishStore(db, driver, options)).decks).toBe('whole');
});
afterEach(async () => {
  if (db.open) db.close();
  await cleanup();
});

/** The root a from-scratch publish of a byte copy of the writer database names (its write lock held while copied). */
async function rootFromScratch(): Promise<string> {
  const copy = join(dir, `copy-${++copies}`, 'writer.db');
  const opened = db.open ? db : openDatabase(file);
  opened.exec('BEGIN IMMEDIATE');
  try {
    spawnSync('mkdir', ['-p', join(dir, `copy-${copies}`)]);
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
  } finally {
    opened.exec('ROLLBACK');
    if (opened !== db) opened.close();
  }
  const other = openDatabase(copy);
  try {
    const result = await publishStore(other, new FsDriver(join(dir, `copy-${copies}`, 'store')), options);
    expect(result.decks).toBe('whole');
    return (await readStoreManifest(new FsDriver(join(dir, `copy-${copies}`, 'store')), result.version)).parts.decks.sha256;
  } finally {
    other.close();
  }
}

/** Publishes and checks the part three ways; returns the result. */
async function publishedRight(expected: { kind: StorePublishResult['decks']; fallback: boolean }): Promise<StorePublishResult> {
  const result = await publishStore(db, driver, options);
  expect(result.decks).toBe(expected.kind);
  if (expected.fallback) expect(result.decksFallback).toMatch(/./);
  else expect(result.decksFallback).toBeUndefined();
  const manifest = await readStoreManifest(driver, (await readPointer(driver, storeLayout.pointer))!.version);
  expect(manifest.parts.decks.sha256).toBe(await rootFromScratch());
  const rebuilt = join(dir, `rebuilt-${copies}.db`);
  await fetchPart(driver, 'decks', manifest.parts.decks, rebuilt);
  const part = new Database(rebuilt, { readonly: true });
  try {
    expect(part.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(part.prepare('SELECT COUNT(*) FROM decks').pluck().get()).toBe(db.prepare('SELECT COUNT(*) FROM decks').pluck().get());
    expect(part.prepare('SELECT COUNT(*) FROM api_keys').pluck().get()).toBe(0);
    expect(part.prepare('SELECT COUNT(*) FROM deck_tokens').pluck().get()).toBe(0);
  } finally {
    part.close();
  }
  const bytes = readFileSync(rebuilt);
  expect(secrets.filter((secret) => bytes.includes(Buffer.from(secret)))).toEqual([]);
  rmSync(rebuilt);
  return result;
}

/** The wal-index header's frame counts and WAL generation (https://sqlite.org/walformat.html; little-endian on this machine). */
function walIndex(): { mxFrame: number; nBackfill: number; salts: string } {
  const shm = readFileSync(`${file}-shm`);
  return { mxFrame: shm.readUInt32LE(16), nBackfill: shm.readUInt32LE(96), salts: shm.toString('hex', 32, 40) };
}

const sqlite3 = (sql: string) => {
  const run = spawnSync('sqlite3', [file, sql], { encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
};

describe('the writer reads what changed from its WAL', () => {
  it('imports published in the same process, and after the connection closed (its WAL gone), go out as deltas read from the WAL', async () => {
    await importDecks(db, some(20, 'Same').map(line));
    await publishedRight({ kind: 'delta', fallback: false });
    db.close();
    db = openDatabase(file);
    const more = some(20, 'Reopened');
    await importDecks(db, more.map(line));
    keysAndTokens('reopened', more);
    await importDecks(db, [line({ id: more[0]!.id, deleted: true })]);
    await publishedRight({ kind: 'delta', fallback: false });
    // Nothing changed: nothing sent.
    expect((await publishStore(db, driver, options)).alreadyCurrent).toBe(true);
  });

  it('a long-lived writer: each publish puts the frames it read into the database file, so the log restarts at the next write and the next publish reads only the frames since', async () => {
    const generations = new Set<string>();
    for (let round = 0; round < 3; round++) {
      await importDecks(db, some(10, `Round ${round}`).map(line));
      const imported = walIndex();
      expect(imported.mxFrame).toBeGreaterThan(imported.nBackfill); // the import's frames, not yet in the file
      generations.add(imported.salts);
      await publishedRight({ kind: 'delta', fallback: false });
      const published = walIndex();
      expect(published.nBackfill).toBe(published.mxFrame);
    }
    expect(generations.size).toBe(3);
  });

  it('another process importing while the writer is open: its frames are read too', async () => {
    const child = spawnSync(process.execPath, ['packages/cli/bin/snapdeck.js', 'decks', 'import', '--db', file, writeLines(some(15, 'Other'))], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    await publishedRight({ kind: 'delta', fallback: false });
  });

  it('the sqlite3 shell only reading while the writer is open changes nothing: still read from the WAL', async () => {
    await importDecks(db, some(10, 'Read').map(line));
    expect(sqlite3('SELECT COUNT(*) FROM decks;').trim()).toBe('3010');
    await publishedRight({ kind: 'delta', fallback: false });
  });

  it('a checkpoint by the sqlite3 shell (TRUNCATE: the WAL reset) makes the next publish compare every page, once', async () => {
    await importDecks(db, some(10, 'Shell').map(line));
    sqlite3('PRAGMA wal_checkpoint(TRUNCATE);');
    await importDecks(db, some(10, 'After').map(line));
    const result = await publishedRight({ kind: 'delta', fallback: true });
    expect(result.decksFallback).toMatch(/checkpointed|rewritten|restarted/);
    await importDecks(db, some(5, 'Then').map(line));
    await publishedRight({ kind: 'delta', fallback: false });
  });

  it('the sqlite3 shell writing and closing last (its close checkpoints and deletes the WAL): every page compared, right', async () => {
    await importDecks(db, some(10, 'Before').map(line));
    db.close();
    sqlite3("UPDATE decks SET name = 'renamed by hand' WHERE rowid IN (SELECT rowid FROM decks LIMIT 50);");
    db = openDatabase(file);
    await publishedRight({ kind: 'delta', fallback: true });
    expect(db.prepare("SELECT COUNT(*) FROM decks WHERE name = 'renamed by hand'").pluck().get()).toBe(50);
  });

  it('through the CLI: the publish that compares every page says why, once; the next one reads the WAL again', async () => {
    db.close();
    sqlite3("UPDATE decks SET view_count = view_count + 1 WHERE rowid IN (SELECT rowid FROM decks LIMIT 10);");
    const cli = (tag: string) => spawnSync(process.execPath, ['packages/cli/bin/snapdeck.js', 'decks', 'import', writeLines(some(5, tag)), '--db', file, '--publish', join(dir, 'store')], { encoding: 'utf8' });
    const first = cli('Cli one');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr.match(/every page of the decks part was compared: .*checkpointed/g)).toHaveLength(1);
    const second = cli('Cli two');
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/published store version .* sent decks/);
    expect(second.stderr).not.toMatch(/every page/);
    db = openDatabase(file);
    await importDecks(db, some(3, 'After cli').map(line));
    await publishedRight({ kind: 'delta', fallback: false });
  });

  it('a WAL reset by another connection (a RESTART checkpoint, then its write) is found; every page compared, right', async () => {
    await importDecks(db, some(10, 'Reset').map(line));
    const other = new Database(file);
    other.pragma('wal_checkpoint(RESTART)');
    other.prepare("UPDATE decks SET like_count = like_count + 1 WHERE rowid % 7 = 0").run();
    other.pragma('wal_checkpoint(TRUNCATE)');
    other.close();
    await publishedRight({ kind: 'delta', fallback: true });
  });

  it('a VACUUM by another connection: right', async () => {
    const doomed = (db.prepare('SELECT id FROM decks LIMIT 300').pluck().all() as string[]).map((id) => line({ id, deleted: true }));
    await importDecks(db, doomed);
    const other = new Database(file);
    other.exec('VACUUM');
    other.close();
    await importDecks(db, some(5, 'Vacuumed').map(line));
    const result = await publishStore(db, driver, options);
    expect(['delta', 'rebase']).toContain(result.decks);
    expect((await readStoreManifest(driver, result.version)).parts.decks.sha256).toBe(await rootFromScratch());
  });

  it('store restore over the writer database: every page compared, right', async () => {
    await importDecks(db, some(10, 'Restored').map(line));
    await publishedRight({ kind: 'delta', fallback: false });
    db.close();
    await restoreStore(driver, file, { force: true });
    db = openDatabase(file);
    await importDecks(db, some(10, 'Since').map(line));
    await publishedRight({ kind: 'delta', fallback: true });
  });

  it('a writer killed (SIGKILL) between its commit and its publish: the next publish reads the frames it left', async () => {
    db.close();
    const signal = await new Promise<string | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join('test', 'helpers', 'import-child.ts'), file, '25', 'Killed'], { stdio: 'ignore' });
      child.on('error', reject);
      child.on('exit', (_code, signal) => resolve(signal));
    });
    expect(signal).toBe('SIGKILL');
    expect(existsSync(`${file}-wal`)).toBe(true);
    db = openDatabase(file);
    await publishedRight({ kind: 'delta', fallback: false });
    expect(db.prepare("SELECT COUNT(*) FROM decks WHERE name LIKE 'Killed %'").pluck().get()).toBe(25);
  });
});

let lines = 0;
function writeLines(decks: unknown[]): string {
  const path = join(dir, `import-${++lines}.jsonl`);
  spawnSync('sh', ['-c', `cat > ${path}`], { input: decks.map(line).join('\n') });
  return path;
}
