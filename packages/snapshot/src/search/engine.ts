import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pagefind from 'pagefind';
import { CARD_MODELS, SEARCH_ENGINE, SEARCH_FIELDS, SEARCH_FUZZY_ENGINE, SEARCH_FUZZY_MODULE, SEARCH_MODULE_SHA256, SEARCH_NAMES_FILE, type GameSlug } from '@snapdeck/contract';
import { sha256Hex } from '../hash.ts';
import type { CatalogEntry } from '../catalog.ts';
import { searchRecord } from './documents.ts';

/** One file of a version's search index, as the gateway serves it below the index's base URL. */
export interface SearchFile {
  path: string;
  /** Its bytes: in memory, or a file the engine wrote (read when packed, one at a time). */
  body: Uint8Array | { file: string };
  /** Text (served with brotli or gzip when asked); the engine's own chunks come gzipped inside. */
  text: boolean;
}

/** A built index: its files, and the folder the engine wrote them to (remove it with `dispose`). */
export interface BuiltSearchFiles {
  files: SearchFile[];
  dispose(): Promise<void>;
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

/**
 * Clients run an index's code files (the engine's modules, its worker script, its WebAssembly)
 * only when they are the bytes the contract pins (SEARCH_MODULE_SHA256): an index with other ones
 * would be refused by every client, so it is not published. This happens when the installed
 * engines are not the pinned releases.
 */
async function checkEngineModules(files: readonly SearchFile[]): Promise<void> {
  for (const [path, expected] of Object.entries(SEARCH_MODULE_SHA256)) {
    const file = files.find((f) => f.path === path);
    const body = file === undefined ? undefined : 'file' in file.body ? await readFile(file.body.file) : file.body;
    const digest = body === undefined ? 'none' : sha256Hex(body);
    if (digest !== expected) {
      throw new SearchBuildError(`the search index's ${path} is not the code clients run (sha256 ${digest}, expected ${expected}): install the pinned engines (${SEARCH_ENGINE.name} ${SEARCH_ENGINE.version}, ${SEARCH_FUZZY_ENGINE.name} ${SEARCH_FUZZY_ENGINE.version}) with npm ci`);
    }
  }
}

/** Records sent to Pagefind before waiting for their answers. */
const BATCH = 500;

/**
 * Cards per fragment file. Pagefind writes one fragment (what a result shows) per card, 100,000
 * files at 100,000 cards, each written, read back and packed; bundled, a few thousand. A result
 * fetches its whole bundle, so bundles stay small, and cards go in by name: a query's top results
 * (mostly cards of one name) share bundles.
 */
const CARDS_PER_FRAGMENT_FILE = 16;

/**
 * The entries' positions in the order records go to Pagefind, which bundles neighbours into one
 * fragment file: by card name, then shortest rules text first, then id. A name query ranks the
 * cards of that name by length (shorter ones score higher), so its top hits are neighbours and
 * share one or two files instead of one file each (bench:search at 100,000 cards: "Cyclomon"'s
 * top 10 came from 8 files, 35 kB, when cards of a name went in by id).
 */
function byName(game: GameSlug, entries: readonly CatalogEntry[]): number[] {
  const nameOf = CARD_MODELS[game].nameOf;
  const textFields = SEARCH_FIELDS[game].text;
  const names: string[] = [];
  const lengths: number[] = [];
  for (const entry of entries) {
    const hit = JSON.parse(entry.hit.toString('utf8')) as Record<string, unknown>;
    names.push(nameOf(hit as never).toLowerCase());
    lengths.push(textFields.reduce((sum, field) => sum + (typeof hit[field] === 'string' ? (hit[field] as string).length : 0), 0));
  }
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return entries.map((_entry, i) => i).sort((a, b) => compare(names[a]!, names[b]!) || lengths[a]! - lengths[b]! || compare(entries[a]!.id, entries[b]!.id));
}

/** A language Pagefind knows for every card (the catalogs are English). */
const LANGUAGE = 'en';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  // parentPath from Node 20.12 on; path before it.
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath ?? (entry as { path?: string }).path ?? dir, entry.name)).split('\\').join('/'));
}

/**
 * Builds one game's search index from exactly `entries` (one record per card, by name) with
 * Pagefind's Node API (its binary runs as a child process, closed afterwards), plus the file of
 * unique card names that clients use for typo-tolerant name matching. Pagefind writes its files
 * into a temporary folder (not through its JSON channel: at 100,000 cards that held every file's
 * bytes at once, several GiB); the caller packs them from there and then calls `dispose`.
 */
export async function buildSearchFiles(game: GameSlug, entries: readonly CatalogEntry[], onDone?: (done: number) => void): Promise<BuiltSearchFiles> {
  const names = new Set<string>();
  const dir = await mkdtemp(join(tmpdir(), 'snapdeck-search-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  // One Pagefind process serves every index of this process: builds running side by side (two
  // games, or two concurrent builds) share it, and the last one to finish closes it.
  buildsUsingPagefind += 1;
  let created: Awaited<ReturnType<typeof pagefind.createIndex>> | undefined;
  try {
    created = await pagefind.createIndex({ forceLanguage: LANGUAGE, maxFragments: Math.max(1, Math.ceil(entries.length / CARDS_PER_FRAGMENT_FILE)) });
    const index = created.index;
    if (!index) throw new SearchBuildError(`search index of ${game}: ${created.errors.join('; ')}`);
    // Records go to Pagefind's process in batches without waiting for each answer (one round
    // trip per record made the 100,000-card index take minutes).
    const order = byName(game, entries);
    const namesListed = new Set<string>();
    for (let from = 0; from < order.length; from += BATCH) {
      const batch = order.slice(from, from + BATCH).map((i) => searchRecord(game, entries[i]!.hit, namesListed));
      const added = await Promise.all(batch.map((record) => {
        names.add(record.name);
        return index.addCustomRecord({ url: record.url, content: record.content, language: LANGUAGE, meta: record.meta, filters: record.filters });
      }));
      const failed = added.findIndex((answer) => answer.errors.length > 0);
      if (failed >= 0) throw new SearchBuildError(`search index of ${game}, card ${batch[failed]!.id}: ${added[failed]!.errors.join('; ')}`);
      onDone?.(Math.min(entries.length, from + BATCH));
    }
    const written = await index.writeFiles({ outputPath: dir });
    if (written.errors.length > 0) throw new SearchBuildError(`search index of ${game}: ${written.errors.join('; ')}`);
    const files: SearchFile[] = (await filesUnder(dir))
      .filter((path) => KEEP.test(path))
      .map((path) => ({ path, body: { file: join(dir, path) }, text: TEXT.test(path) }));
    if (!files.some((file) => file.path === 'pagefind-entry.json')) throw new SearchBuildError(`search index of ${game}: ${SEARCH_ENGINE.name} wrote no entry file`);
    const sortedNames = [...names].sort();
    files.push({ path: SEARCH_NAMES_FILE, body: Buffer.from(JSON.stringify(sortedNames)), text: true });
    files.push({ path: SEARCH_FUZZY_MODULE, body: fuzzyModule(), text: true });
    await checkEngineModules(files);
    onDone?.(entries.length);
    return { files: files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), dispose };
  } catch (error) {
    await dispose();
    throw error;
  } finally {
    await created?.index?.deleteIndex();
    buildsUsingPagefind -= 1;
    if (buildsUsingPagefind === 0) await pagefind.close();
  }
}

/** How many buildSearchFiles calls of this process are using Pagefind's process right now. */
let buildsUsingPagefind = 0;
