import { OperatorError } from '@snapdeck/contract';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { VERSION_PATTERN, readPointer, type StorageDriver } from '@snapdeck/snapshot';
import { migrate } from '../db/database.ts';
import { MIGRATIONS } from '../db/migrations.ts';
import { startDeckChangesEpoch } from '../decks/changes.ts';
import { storeLayout, type StoreManifest } from './layout.ts';
import { fetchPart } from './part-fetch.ts';
import { PartChecksumError, downloadPart, readGenerations } from './parts.ts';
import { recordPublication } from './publications.ts';
import { readStoreManifest } from './publish.ts';
import { orderOf, positionOf } from './version-order.ts';

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
 * Which version to restore: the one named (`version`), else the pointer's, refused when a newer
 * version of the same store is present beside it: the pointer was put back, and restoring from it
 * would bring back what later versions changed (keys revoked since among it).
 */
async function versionToRestore(driver: StorageDriver, version: string | undefined): Promise<StoreManifest> {
  if (version !== undefined) {
    if (!VERSION_PATTERN.test(version)) throw new StoreRestoreError(`--version ${JSON.stringify(version)} is not a store version id (like 2026-11-22T11-05-12-345Z-1a2b3c); nothing was changed`);
    if (!(await driver.head(storeLayout.manifest(version)))) throw new StoreRestoreError(`there is no store version ${version} at ${driver.location}; nothing was changed`);
    return readStoreManifest(driver, version);
  }
  const pointer = await readPointer(driver, storeLayout.pointer);
  if (!pointer) throw new StoreRestoreError(`no store has been published at ${driver.location} (no ${storeLayout.pointer}); nothing was changed`);
  const manifest = await readStoreManifest(driver, pointer.version);
  // Version ids of one store grow with its sequence (a writer names each version after its base).
  const later = (await driver.list(storeLayout.versionsPrefix))
    .map((key) => key.slice(storeLayout.versionsPrefix.length).replace(/\.json$/, ''))
    .filter((v) => VERSION_PATTERN.test(v) && v > pointer.version)
    .sort()
    .reverse();
  for (const candidate of later) {
    const other = await readStoreManifest(driver, candidate).catch(() => null);
    if (other && orderOf(positionOf(manifest), positionOf(other)) === 'newer') {
      throw new StoreRestoreError(
        `the pointer at ${driver.location} names ${pointer.version}, older than ${candidate} which is also there: the pointer was put back, and restoring from it would bring back what later versions changed (keys revoked since among it). ` +
          `Say which version to restore: --version ${candidate} (the newest), or --version ${pointer.version} to take the pointer's anyway. Nothing was changed.`,
      );
    }
  }
  return manifest;
}

/**
 * `snapdeck store restore`: a writer database rebuilt from the version current at the location,
 * or the one named (disaster recovery, moving the writer, a rolled-back pointer). The decks part
 * is the writer's own schema already; keys and tokens are put back from the auth part (tokens
 * re-attached to their decks by id). Built beside the target and renamed into place only when
 * whole and checked: a failure leaves the target as it was. The result is recorded as derived
 * from that version (its sequence and store id too), so it may publish, and moves the store on.
 */
export async function restoreStore(driver: StorageDriver, file: string, options: { force?: boolean; version?: string } = {}): Promise<StoreRestoreResult> {
  const target = resolve(file);
  if (existsSync(target) && !options.force) {
    throw new RestoreTargetExistsError(file);
  }
  const manifest = await versionToRestore(driver, options.version);
  await mkdir(dirname(target), { recursive: true });
  const work = await mkdtemp(join(dirname(target), '.snapdeck-restore-'));
  try {
    const decksFile = join(work, 'restored.db');
    const authFile = join(work, 'auth.db');
    await downloadPart(driver, 'auth', manifest.parts.auth, authFile);
    await fetchPart(driver, 'decks', manifest.parts.decks, decksFile);
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
      // A version named explicitly may be older than what partners have synced: their deck change
      // cursors cannot be followed from it (they answer 410, and partners enumerate again).
      if (options.version !== undefined) startDeckChangesEpoch(db);
      recordPublication(db, driver.location, positionOf(manifest), readGenerations(db));
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
