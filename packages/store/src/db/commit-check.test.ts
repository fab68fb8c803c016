import { existsSync } from 'node:fs';
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
    const reopened = openDatabase(t.file);
    const writer = openDatabase(t.file);
    try {
      const insert = writer.prepare('INSERT INTO notes VALUES (?)');
      expectExact(commitCheck(reopened), () => insert.run(1), 5);
    } finally {
      writer.close();
      reopened.close();
    }
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
});
