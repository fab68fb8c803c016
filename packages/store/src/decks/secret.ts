import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';

/**
 * A named random secret kept in the `settings` table (migration 2), created on first use. Every
 * gateway process that opens the same database gets the same bytes, so a cursor signed by one
 * process verifies in another and across restarts.
 *
 * Race-safe: `INSERT OR IGNORE` lets the first writer win; everyone then reads the stored value.
 */
export function getOrCreateSecret(db: Db, name: string, bytes = 32): Buffer {
  db.prepare('INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)').run(name, randomBytes(bytes).toString('base64url'));
  const row = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE name = ?').get(name);
  if (!row) throw new Error(`setting ${name} could not be stored`);
  return Buffer.from(row.value, 'base64url');
}

/** The name under which the deck listing's cursor key is stored. */
export const DECK_CURSOR_SECRET = 'deck_cursor_hmac_key';
