/**
 * Writes the default catalog (data/catalog/<game>.jsonl, seeded) when any game's file is missing.
 * Runs on `npm ci` (the prepare script), so `npx snapdeck build` works right after set-up.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GAME_SLUGS } from '@snapdeck/contract';
import { DEFAULT_CATALOG_DIR, writeDefaultCatalog } from './generate-catalog.ts';

export function ensureDefaultCatalog(dir: string = DEFAULT_CATALOG_DIR): boolean {
  if (GAME_SLUGS.every((game) => existsSync(join(dir, `${game}.jsonl`)))) return false;
  console.error(`generating the default catalog into ${dir} …`);
  writeDefaultCatalog(dir);
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) ensureDefaultCatalog();
