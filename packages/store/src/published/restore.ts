import { OperatorError } from '@snapdeck/contract';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { readPointer, type StorageDriver } from '@snapdeck/snapshot';
import { migrate } from '../db/database.ts';
import { MIGRATIONS } from '../db/migrations.ts';
import { storeLayout } from './layout.ts';
import { PartChecksumError, downloadPart, readGenerations } from './parts.ts';
import { readStoreManifest, recordPublication } from './publish.ts';

export class StoreRestoreError extends OperatorError {}

/** The database to restore exists and replacing it was not asked for (`force`). */
export class RestoreTargetExistsError extends StoreRestoreError {
  constructor(readonly file: string) {
    super(`${file} already exists; nothing was changed`);
  }
}

export interface StoreRestoreResult {
  version: string;
  file: string;
  keys: number;
  tokens: number;
  decks: number;
}

/**
 * `snapdeck store restore`: a writer database rebuilt from the version current at the location
 * (disaster recovery, or moving the writer). The decks part is the writer's own schema already;
 * keys and tokens are put back from the auth part (tokens re-attached to their decks by id).
 * Built beside the target and renamed into place only when whole and checked: a failure leaves
 * the target as it was. The result is recorded as derived from that version, so it may publish.
 */
export async function restoreStore(driver: StorageDriver, file: string, options: { force?: boolean } = {}): Promise<StoreRestoreResult> {
  const target = resolve(file);
  if (existsSync(target) && !options.force) {
    throw new RestoreTargetExistsError(file);
  }
  const pointer = await readPointer(driver, storeLayout.pointer);
  if (!pointer) throw new StoreRestoreError(`no store has been published at ${driver.location} (no ${storeLayout.pointer}); nothing was changed`);
  const manifest = await readStoreManifest(driver, pointer.version);
  await mkdir(dirname(target), { recursive: true });
  const work = await mkdtemp(join(dirname(target), '.snapdeck-restore-'));
  try {
    const decksFile = join(work, 'restored.db');
    const authFile = join(work, 'auth.db');
    await downloadPart(driver, 'auth', manifest.parts.auth, authFile);
    await downloadPart(driver, 'decks', manifest.parts.decks, decksFile);
    const db = new Database(decksFile);
    let counts: { keys: number; tokens: number; decks: number };
    try {
      db.pragma('journal_mode = DELETE');
      db.pragma('foreign_keys = ON');
      migrate(db, MIGRATIONS);
      db.prepare('ATTACH DATABASE ? AS auth').run(authFile);
      db.transaction(() => {
        db.exec('INSERT INTO main.api_keys SELECT id, name, key_hash, key_prefix, scopes, quota, created_at, revoked_at FROM auth.api_keys');
        db.exec(`INSERT INTO main.deck_tokens (token_hash, deck_seq, kind, created_at, expires_at)
                 SELECT t.token_hash, d.seq, t.kind, t.created_at, t.expires_at FROM auth.deck_tokens t JOIN main.decks d ON d.id = t.deck_id`);
      })();
      db.exec('DETACH DATABASE auth');
      recordPublication(db, driver.location, manifest.version, readGenerations(db));
      counts = {
        keys: db.prepare<[], number>('SELECT COUNT(*) FROM api_keys').pluck().get()!,
        tokens: db.prepare<[], number>('SELECT COUNT(*) FROM deck_tokens').pluck().get()!,
        decks: db.prepare<[], number>('SELECT COUNT(*) FROM decks').pluck().get()!,
      };
    } finally {
      db.close();
    }
    for (const suffix of ['-wal', '-shm']) await rm(`${target}${suffix}`, { force: true });
    await rename(decksFile, target);
    return { version: manifest.version, file: target, ...counts };
  } catch (error) {
    if (error instanceof PartChecksumError) {
      throw new StoreRestoreError(`store version ${manifest.version} at ${driver.location} is damaged: ${error.message}; nothing was changed`);
    }
    throw error;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
