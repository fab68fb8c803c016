import { createRequire } from 'node:module';
import { build } from 'esbuild';

/** The contract's pinned-engine loader, the one @snapdeck/client runs. */
const SOURCE = createRequire(import.meta.url).resolve('@snapdeck/contract/search-engine');

let bundled: Promise<string> | undefined;

/**
 * /search/engine.js: the contract's search-engine.ts (and the pins it reads) as one browser ES
 * module, so that the page checks every engine file against the pins exactly as @snapdeck/client
 * does, with the same code. Bundled once per process, on first use.
 */
export function searchEngineModule(): Promise<string> {
  if (bundled === undefined) {
    const making = build({ entryPoints: [SOURCE], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, legalComments: 'none', logLevel: 'silent' }).then(
      (result) => result.outputFiles[0]!.text,
    );
    bundled = making;
    making.catch(() => bundled === making && (bundled = undefined));
  }
  return bundled;
}
