import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDb, type TempDb } from '../../../../test/helpers/deck-db.ts';
import { commitCheck, type CommitCheck } from './commit-check.ts';
import { openDatabase } from './database.ts';

const opened: TempDb[] = [];
afterEach(() => opened.splice(0).forEach((t) => t.close()));

function database(): TempDb {
  const t = tempDb();
  opened.push(t);
  t.db.exec('CREATE TABLE notes (n INTEGER)');
  return t;
}

/** Every commit is seen by the next call, and a call with no commit before it sees none. */
function expectExact(check: CommitCheck, commit: () => void, commits = 25): void {
  expect(check.changed()).toBe(true); // the first call
  expect(check.changed()).toBe(false);
  for (let i = 0; i < commits; i++) {
    commit();
    expect(check.changed(), `commit ${i + 1}`).toBe(true);
    expect(check.changed(), `after commit ${i + 1}`).toBe(false);
  }
}

/** expectExact for a check of `reader`, with commits through a new connection to `path`; closes both. */
function expectExactThrough(reader: ReturnType<typeof openDatabase>, path: string, commits = 5): void {
  const writer = openDatabase(path);
  try {
    const insert = writer.prepare('INSERT INTO notes VALUES (?)');
    expectExact(commitCheck(reader), () => insert.run(1), commits);
  } finally {
    writer.close();
    reader.close();
  }
}

describe('commitCheck', () => {
  it("sees every commit of another connection to a WAL database (the wal-index header)", () => {
    const t = database();
    expect(existsSync(`${t.file}-shm`)).toBe(true);
    const writer = openDatabase(t.file);
    try {
      const insert = writer.prepare('INSERT INTO notes VALUES (?)');
      expectExact(commitCheck(t.db), () => insert.run(1));
      // A transaction of many statements is one commit; a checkpoint and the WAL started over in between too.
      const check = commitCheck(t.db);
      check.changed();
      writer.pragma('wal_checkpoint(TRUNCATE)');
      writer.transaction(() => [1, 2, 3].forEach((n) => insert.run(n)))();
      expect(check.changed()).toBe(true);
    } finally {
      writer.close();
    }
  });

  it("sees this connection's own commits to a WAL database too", () => {
    const t = database();
    const insert = t.db.prepare('INSERT INTO notes VALUES (?)');
    expectExact(commitCheck(t.db), () => insert.run(1), 5);
  });

  it('uses PRAGMA data_version for a database not in WAL mode: every commit of another connection', () => {
    const t = database();
    t.db.pragma('journal_mode = DELETE');
    const writer = new Database(t.file);
    try {
      const insert = writer.prepare('INSERT INTO notes VALUES (?)');
      expectExact(commitCheck(t.db), () => insert.run(1));
    } finally {
      writer.close();
    }
  });

  it('reads the -shm file of the database as it is now, after the path was closed and opened again', () => {
    const t = database();
    commitCheck(t.db).changed();
    t.db.close();
    expect(existsSync(`${t.file}-shm`)).toBe(false); // SQLite deleted it with the last connection
    expectExactThrough(openDatabase(t.file), t.file);
  });

  it('works for an in-memory database (data_version)', () => {
    const db = new Database(':memory:');
    try {
      const check = commitCheck(db);
      expect(check.changed()).toBe(true);
      expect(check.changed()).toBe(false);
    } finally {
      db.close();
    }
  });

  describe('reads the -shm file SQLite reads', () => {
    /** `linkPath` → the database `t`, with a stale -shm of the database's own left beside the link. */
    function linkWithStaleShm(t: TempDb, linkPath: string): void {
      copyFileSync(`${t.file}-shm`, `${linkPath}-shm`); // a wal-index header that never moves again
      symlinkSync(t.file, linkPath);
    }

    it('through a symbolic link, with a stale -shm beside the link', () => {
      const t = database();
      const link = join(t.dir, 'current.db');
      linkWithStaleShm(t, link);
      expectExactThrough(openDatabase(link), link);
    });

    it('through a relative path, after the working directory changed to one with a stale -shm of that name', () => {
      const t = database();
      const elsewhere = join(t.dir, 'elsewhere');
      mkdirSync(elsewhere);
      copyFileSync(`${t.file}-shm`, join(elsewhere, 'snapdeck.db-shm'));
      const home = process.cwd();
      let reader: ReturnType<typeof openDatabase> | undefined;
      try {
        process.chdir(t.dir);
        reader = openDatabase(relative(t.dir, t.file));
        process.chdir(elsewhere);
        const insert = t.db.prepare('INSERT INTO notes VALUES (?)');
        expectExact(commitCheck(reader), () => insert.run(1), 5);
      } finally {
        process.chdir(home);
        reader?.close();
      }
    });

    it('of a database replaced under the same name while closed', () => {
      const t = database();
      const path = join(t.dir, 'moved', 'snapdeck.db');
      mkdirSync(join(t.dir, 'moved'));
      const first = openDatabase(path);
      first.exec('CREATE TABLE notes (n INTEGER)');
      commitCheck(first).changed();
      first.close();
      t.db.close();
      renameSync(t.file, path); // another database, now under the name the first one had
      expectExactThrough(openDatabase(path), path);
    });
  });

  describe('keeps a bounded number of descriptors', () => {
    const descriptors = () => readdirSync('/proc/self/fd').length;

    /** Opens `path`, checks it, commits through another connection, checks again, closes both. */
    function cycle(path: string): void {
      const reader = openDatabase(path);
      const writer = openDatabase(path);
      try {
        const check = commitCheck(reader);
        expect(check.changed()).toBe(true);
        writer.prepare('INSERT INTO notes VALUES (1)').run();
        expect(check.changed()).toBe(true);
      } finally {
        writer.close();
        reader.close();
      }
    }

    it('over 200 open/close cycles of one path', () => {
      const t = database();
      t.db.close();
      cycle(t.file); // the first descriptor kept for the path
      const before = descriptors();
      for (let i = 0; i < 200; i++) cycle(t.file);
      expect(descriptors() - before).toBeLessThanOrEqual(1);
    });

    it('over open/close cycles of 200 paths', () => {
      const paths = Array.from({ length: 200 }, () => {
        const t = database();
        t.db.close();
        return t.file;
      });
      cycle(paths[0]!);
      const before = descriptors();
      for (const path of paths) cycle(path);
      expect(descriptors() - before).toBeLessThanOrEqual(1);
    });
  });

  it('says "changed" on every call once the -shm file was deleted by hand while the database was open', () => {
    const t = database();
    const check = commitCheck(t.db);
    expect(check.changed()).toBe(true);
    expect(check.changed()).toBe(false);
    unlinkSync(`${t.file}-shm`);
    const other = database(); // opening another database closes the descriptors of deleted files
    other.db.exec('INSERT INTO notes VALUES (1)');
    commitCheck(other.db);
    expect(check.changed()).toBe(true);
    expect(check.changed()).toBe(true);
  });
});
