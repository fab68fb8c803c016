import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { build } from 'esbuild';

const resolve = createRequire(import.meta.url).resolve;
/** The contract's pinned-engine loader and its query logic, the two @snapdeck/client runs. */
const SOURCES = [resolve('@snapdeck/contract/search-engine'), resolve('@snapdeck/contract/search-query')];
/** The license of the one library bundled with them (the query logic's edit distance), kept with its code as it asks. */
const NOTICE = `/*! damerau-levenshtein: ${readFileSync(resolve('damerau-levenshtein/LICENSE'), 'utf8').trim().replaceAll('*/', '* /')} */`;

let bundled: Promise<string> | undefined;

/**
 * /search/engine.js: the contract's search-engine.ts and search-query.ts (and what they import:
 * the pins, the name matcher) as one browser ES module exporting both, so that the page checks
 * every engine file against the pins and ranks hits exactly as @snapdeck/client does, with the
 * same code. Compiled from the sources by esbuild (never a function's own text, which a runtime
 * such as tsx may have rewritten), once per process, on first use.
 */
export function searchEngineModule(): Promise<string> {
  if (bundled === undefined) {
    const entry = SOURCES.map((file) => `export * from ${JSON.stringify(file)};`).join('\n');
    const making = build({
      stdin: { contents: entry, resolveDir: dirname(SOURCES[0]!), loader: 'js' },
      bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, legalComments: 'none', logLevel: 'silent', banner: { js: NOTICE },
    }).then((result) => result.outputFiles[0]!.text);
    bundled = making;
    making.catch(() => bundled === making && (bundled = undefined));
  }
  return bundled;
}
