import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const CLIENT_ENTRY = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'client', 'src', 'index.ts');

/** @snapdeck/client from this checkout's source as one ES module for a browser, as a partner's bundler would make it. */
export async function browserClientBundle(): Promise<string> {
  const result = await build({ entryPoints: [CLIENT_ENTRY], bundle: true, format: 'esm', platform: 'browser', target: 'es2022', write: false, logLevel: 'silent' });
  return result.outputFiles[0]!.text;
}

/** A page that loads the bundle from `clientPath` and puts its exports on `window.snapdeck`. */
export const clientPage = (clientPath: string): string =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>client</title><link rel="icon" href="data:,"><script type="module">import * as snapdeck from ${JSON.stringify(clientPath)}; window.snapdeck = snapdeck;</script></html>`;
