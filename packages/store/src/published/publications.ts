import type { Db } from '../db/database.ts';
import type { Generations } from './parts.ts';
import type { StorePosition } from './version-order.ts';

/**
 * The writer database's record, per location, of the store version it last made current there or
 * was restored from (the one-writer rule, publish.ts), with what each part held then and where
 * that version stands in the store's history (version-order.ts).
 */
export interface Publication {
  version: string | null;
  auth_generation: number | null;
  decks_generation: number | null;
  sequence: number | null;
  store_id: string | null;
  pending_version: string | null;
  pending_auth_generation: number | null;
  pending_decks_generation: number | null;
}

export function readPublication(db: Db, location: string): Publication | null {
  return db.prepare<[string], Publication>('SELECT * FROM store_publications WHERE location = ?').get(location) ?? null;
}

/** Records that this database is at `position` of the store at `location`, holding `generations`. */
export function recordPublication(db: Db, location: string, position: StorePosition, generations: Generations): void {
  db.prepare(
    `INSERT INTO store_publications (location, version, auth_generation, decks_generation, sequence, store_id) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (location) DO UPDATE SET version = excluded.version, auth_generation = excluded.auth_generation,
       decks_generation = excluded.decks_generation, sequence = excluded.sequence, store_id = excluded.store_id,
       pending_version = NULL, pending_auth_generation = NULL, pending_decks_generation = NULL`,
  ).run(location, position.version, generations.auth, generations.decks, position.sequence, position.storeId);
}

/** Records the version a publish is about to make current (a writer killed after the swap finds it here). */
export function recordPending(db: Db, location: string, version: string, generations: Generations): void {
  db.prepare(
    `INSERT INTO store_publications (location, pending_version, pending_auth_generation, pending_decks_generation) VALUES (?, ?, ?, ?)
     ON CONFLICT (location) DO UPDATE SET pending_version = excluded.pending_version,
       pending_auth_generation = excluded.pending_auth_generation, pending_decks_generation = excluded.pending_decks_generation`,
  ).run(location, version, generations.auth, generations.decks);
}

/** Where this database's last publication stands (null: it never published or restored here). */
export function ownPosition(publication: Publication | null): StorePosition | null {
  if (!publication?.version) return null;
  return { version: publication.version, sequence: publication.sequence, storeId: publication.store_id };
}
