import { existsSync, renameSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { sha256Hex } from '@snapdeck/snapshot';
import { MIGRATIONS, importDecks, openDatabase } from '@snapdeck/store';
import { SYNTHETIC_TEMPLATES, generateDeckLines } from '../../lib/deck-generator.ts';

/** A database of `count` generated decks, built once and cached (a copy is used, so runs start alike). */
export async function cachedDeckDatabase(o: { count: number; seed: number; work: string; name: string; fresh: boolean; dataDir: string }): Promise<string> {
  const { count, work, name } = o;
  const SEED = o.seed;
  const version = sha256Hex(JSON.stringify({ count, SEED, SYNTHETIC_TEMPLATES, schema: MIGRATIONS.map((m) => [m.version, m.sql]) })).slice(0, 16);
  const cached = join(o.dataDir, `snapdeck-bench-store-${count}-${version}.db`);
  if (o.fresh) rmSync(cached, { force: true });
  if (!existsSync(cached)) {
    const building = `${cached}.building`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${building}${suffix}`, { force: true });
    console.error(`generating and importing ${count.toLocaleString('en')} decks (once; later runs reuse ${cached}) …`);
    const db = openDatabase(building);
    const result = await importDecks(db, generateDeckLines({ seed: SEED, count, templates: SYNTHETIC_TEMPLATES }));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    renameSync(building, cached);
    console.error(`imported in ${(result.elapsedMs / 1000).toFixed(0)} s`);
  }
  const copy = join(work, `decks-${count}${name}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
  rmSync(`${copy}.store-decks`, { recursive: true, force: true });
  spawnSync('cp', [cached, copy]);
  return copy;
}

