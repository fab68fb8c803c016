import { createHash } from 'node:crypto';
import type { CatalogEntry } from '../catalog.ts';

/** Bump when rendering changes so that the same input gets a new version id (publish-version.ts). */
const RENDER_REVISION = 4; // 2: pages carry indexVersion; versions carry card hashes (changes/) and their search index (search/); 3: the index holds name and entry words (search/documents.ts); 4: smaller index files: ids as the engine's own joined word, the hit in the record URL unescaped (search/documents.ts, contract search.ts)

/** SHA-256 of everything that determines a version's bytes (see publish-version.ts). */
export function buildHash(game: string, entries: readonly CatalogEntry[], hitsPerPage: readonly number[], segmentBytes: number, withSearchIndex = true): string {
  const hash = createHash('sha256');
  // A version without its search index (benchmarks' and some tests' baseline) is another version:
  // a later build of the same cards must not reuse it as the game's indexed version.
  const search = withSearchIndex ? {} : { search: false };
  hash.update(JSON.stringify({ scheme: 'snapdeck-version', render: RENDER_REVISION, format: 1, game, hitsPerPage, segmentBytes, ...search }));
  // JSON text never holds a raw NUL or newline, so these separators are unambiguous.
  for (const entry of entries) {
    hash.update(`\n${entry.id}\0`);
    hash.update(entry.card);
    hash.update('\0');
    hash.update(entry.hit);
  }
  return hash.digest('hex');
}
