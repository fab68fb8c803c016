/**
 * The databases of bench:deck-feed: one game of N generated decks (every deck of the generated
 * store moved into GAME, so a game really has a million decks), as the schema was before the
 * deck change feed (`before.db`) and migrated to it (`feed.db`, the migration timed), and the
 * night's import of 1 % of the decks.
 */
import { copyFileSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, importDecks, openDatabase, type Db } from '@snapdeck/store';
import { SYNTHETIC_TEMPLATES, generateDeckLines } from '../../lib/deck-generator.ts';

export const GAME = 'gundam';
const SEED = 20_261_122;
/** The schema before the feed (migration 5). */
export const BEFORE_FEED = MIGRATIONS.filter((m) => m.version < 5);

/** A generated store of `count` decks at schema 4: a cached one (bench:store's, under tmpdir or --from's folder), else made here. */
async function generated(count: number, folders: string[], work: string): Promise<string> {
  for (const folder of folders) {
    const found = (existsSync(folder) ? readdirSync(folder) : []).find((name) => name.startsWith(`snapdeck-bench-store-${count}-`) && name.endsWith('.db'));
    if (!found) continue;
    const db = new Database(join(folder, found), { readonly: true });
    const version = db.prepare<[], number>('SELECT MAX(version) FROM schema_migrations').pluck().get();
    db.close();
    if (version === 4) return join(folder, found);
  }
  const file = join(work, `generated-${count}.db`);
  console.error(`generating ${count.toLocaleString('en')} decks (no cached store of them found) …`);
  const db = openDatabase(file, BEFORE_FEED);
  await importDecks(db, generateDeckLines({ seed: SEED, count, templates: SYNTHETIC_TEMPLATES }));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return file;
}

export interface Prepared {
  before: string;
  feed: string;
  migrationMs: number;
}

export async function prepare(count: number, work: string, from: string | undefined): Promise<Prepared> {
  const source = await generated(count, [...(from ? [from] : []), tmpdir()], work);
  const one = join(work, 'one-game.db');
  copyFileSync(source, one);
  // Every deck in one game; the listing indexes rebuilt once rather than moved a million times.
  const db = new Database(one);
  const indexes = db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'decks' AND name LIKE 'decks_public_%'").all();
  db.transaction(() => {
    for (const index of indexes) db.exec(`DROP INDEX ${index.name}`);
    db.prepare('UPDATE decks SET game_id = ?').run(GAME);
    for (const index of indexes) db.exec(index.sql);
    db.exec('DELETE FROM deck_public_counts');
    db.exec("INSERT INTO deck_public_counts (game_id, count) SELECT game_id, COUNT(*) FROM decks WHERE visibility = 'public' GROUP BY game_id");
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const before = join(work, 'before.db');
  const feed = join(work, 'feed.db');
  copyFileSync(one, before);
  renameSync(one, feed);
  rmSync(`${one}-wal`, { force: true });
  rmSync(`${one}-shm`, { force: true });
  const started = performance.now();
  openDatabase(feed).close(); // migration 5: change numbers for every deck, the feed's index
  return { before, feed, migrationMs: performance.now() - started };
}

interface DeckRow {
  id: string;
  name: string;
  owner_display_name: string;
  created_at: number;
  updated_at: number;
  seq: number;
}

/** An import line for a stored deck, changed by `change`. */
function lineOf(db: Db, row: DeckRow, change: { visibility?: string; updatedAt: number }): string {
  const cards = db.prepare<[number], { card_id: string; quantity: number; zone_id: string | null }>('SELECT card_id, quantity, zone_id FROM deck_cards WHERE deck_seq = ? ORDER BY position').all(row.seq);
  return JSON.stringify({
    id: row.id, gameId: GAME, name: row.name, ownerDisplayName: row.owner_display_name, visibility: change.visibility ?? 'public',
    createdAt: new Date(Math.min(row.created_at, change.updatedAt)).toISOString(), updatedAt: new Date(change.updatedAt).toISOString(),
    cards: cards.map((c) => ({ cardId: c.card_id, quantity: c.quantity, ...(c.zone_id ? { zoneId: c.zone_id } : {}) })),
  });
}

/**
 * The night: `changed` decks of the game (1 % of them), 80 % edited with a new updatedAt, 1 % of
 * those a late batch (updatedAt a day before the last sync), 10 % made private, 10 % deleted.
 */
export function nightlyLines(db: Db, changed: number, syncedUpTo: number): { lines: string[]; late: string[] } {
  const rows = db.prepare<[string, number], DeckRow>(
    "SELECT id, name, owner_display_name, created_at, updated_at, seq FROM decks WHERE game_id = ? AND visibility = 'public' ORDER BY seq DESC LIMIT ?",
  ).all(GAME, changed * 7);
  const picked = rows.filter((_, i) => i % 7 === 3).slice(0, changed);
  const lines: string[] = [];
  const late: string[] = [];
  picked.forEach((row, i) => {
    const kind = i % 10;
    if (kind === 8) lines.push(lineOf(db, row, { visibility: 'private', updatedAt: row.updated_at }));
    else if (kind === 9) lines.push(JSON.stringify({ id: row.id, deleted: true }));
    else if (i % 100 === 0) {
      lines.push(lineOf(db, row, { updatedAt: syncedUpTo - 86_400_000 }));
      late.push(row.id);
    } else lines.push(lineOf(db, row, { updatedAt: syncedUpTo + 3_600_000 + i }));
  });
  return { lines, late };
}
