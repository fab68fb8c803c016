import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as pagefind from 'pagefind';
import { SEARCH_ENGINE, SEARCH_FUZZY_MODULE, SEARCH_NAMES_FILE, type GameSlug } from '@snapdeck/contract';
import type { CatalogEntry } from '../catalog.ts';
import { searchDocument } from './documents.ts';

/** One file of a version's search index, as the gateway serves it below the index's base URL. */
export interface SearchFile {
  path: string;
  body: Uint8Array;
  /** Text (served with brotli or gzip when asked); the engine's own chunks come gzipped inside. */
  text: boolean;
}

export class SearchBuildError extends Error {}

/**
 * The files a client needs: the entry module and its worker, the entry and meta files, the WASM,
 * and the chunks (index, filter, fragment). The engine's ready-made UIs are left out (the /search
 * page has its own), and so is anything unexpected.
 */
const KEEP = /^(?:pagefind\.js|pagefind-worker\.js|pagefind-entry\.json|wasm\.[a-z-]+\.pagefind|pagefind\.[\w-]+\.pf_meta|(?:index|filter|fragment)\/[\w-]+\.pf_(?:index|filter|fragment))$/;
const TEXT = /\.(?:js|json)$/;

/**
 * MiniSearch's ES module, shipped inside every index: clients build a small fuzzy index of the
 * card names from names.json with it (Pagefind has no typo tolerance), so neither the browser
 * page nor @snapdeck/client carries a search engine of its own.
 */
function fuzzyModule(): Buffer {
  const file = fileURLToPath(import.meta.resolve('minisearch')); // the ES build ("import" condition)
  return Buffer.from(readFileSync(file, 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n'));
}

/** Records sent to Pagefind before waiting for their answers. */
const BATCH = 500;

/** A language Pagefind knows for every card (the catalogs are English). */
const LANGUAGE = 'en';

/**
 * Builds one game's search index from exactly `entries` (one document per card, in order) with
 * Pagefind's Node API (its binary runs as a child process, closed afterwards), plus the file of
 * unique card names that clients use for typo-tolerant name matching.
 */
export async function buildSearchFiles(game: GameSlug, entries: readonly CatalogEntry[], onDone?: (done: number) => void): Promise<SearchFile[]> {
  const names = new Set<string>();
  // One Pagefind process serves every index of this process: builds running side by side (two
  // games, or two concurrent builds) share it, and the last one to finish closes it.
  buildsUsingPagefind += 1;
  let created: Awaited<ReturnType<typeof pagefind.createIndex>> | undefined;
  try {
    created = await pagefind.createIndex({ forceLanguage: LANGUAGE });
    const index = created.index;
    if (!index) throw new SearchBuildError(`search index of ${game}: ${created.errors.join('; ')}`);
    // Records go to Pagefind's process in batches without waiting for each answer (one round
    // trip per record made the 100,000-card index take minutes).
    for (let from = 0; from < entries.length; from += BATCH) {
      const batch = entries.slice(from, from + BATCH).map((entry) => searchDocument(game, entry.hit));
      const added = await Promise.all(batch.map((doc) => {
        names.add(doc.name);
        return index.addHTMLFile({ url: `/${encodeURIComponent(doc.id)}`, content: doc.html });
      }));
      const failed = added.findIndex((answer) => answer.errors.length > 0);
      if (failed >= 0) throw new SearchBuildError(`search index of ${game}, card ${batch[failed]!.id}: ${added[failed]!.errors.join('; ')}`);
      onDone?.(Math.min(entries.length, from + BATCH));
    }
    const got = await index.getFiles();
    if (got.errors.length > 0) throw new SearchBuildError(`search index of ${game}: ${got.errors.join('; ')}`);
    const files: SearchFile[] = got.files
      .filter((file) => KEEP.test(file.path))
      .map((file) => ({ path: file.path, body: file.content, text: TEXT.test(file.path) }));
    if (!files.some((file) => file.path === 'pagefind-entry.json')) throw new SearchBuildError(`search index of ${game}: ${SEARCH_ENGINE.name} wrote no entry file`);
    const sortedNames = [...names].sort();
    files.push({ path: SEARCH_NAMES_FILE, body: Buffer.from(JSON.stringify(sortedNames)), text: true });
    files.push({ path: SEARCH_FUZZY_MODULE, body: fuzzyModule(), text: true });
    onDone?.(entries.length);
    return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  } finally {
    await created?.index?.deleteIndex();
    buildsUsingPagefind -= 1;
    if (buildsUsingPagefind === 0) await pagefind.close();
  }
}

/** How many buildSearchFiles calls of this process are using Pagefind's process right now. */
let buildsUsingPagefind = 0;
