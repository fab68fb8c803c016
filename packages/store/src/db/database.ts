import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './migrations.ts';
import { advanceOnClose } from './wal-follow.ts';

export type Db = Database.Database;

/**
 * Opens the SQLite file (creating it and its folder), in WAL mode so the gateway reads while an
 * import writes, and brings the schema up to date. Safe to call from several processes at once:
 * migrations run under an immediate transaction and skip what is already applied.
 */
export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Deleted rows (share tokens, decks' tokens) are overwritten with zeros and freed pages zeroed,
  // so that a page-level copy of this file (a decks part) cannot carry them (page-view.ts, parts.ts).
  db.pragma('secure_delete = ON');
  if (file !== ':memory:') {
    // A database that publishes its decks keeps its WAL frames until it has read them (wal-follow.ts):
    // no automatic checkpoint, and its own, after reading them, when the connection closes.
    if (existsSync(`${resolve(file)}.store-decks`)) db.pragma('wal_autocheckpoint = 0');
    const close = db.close.bind(db);
    db.close = () => {
      advanceOnClose(db);
      return close();
    };
  }
  migrate(db, migrations);
  return db;
}

export function migrate(db: Db, migrations: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = db.prepare<[number], { version: number }>('SELECT version FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    db.transaction(() => {
      if (applied.get(migration.version)) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    }).immediate();
  }
}
