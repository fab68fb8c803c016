// The CLI's sources bundled into a few files, made on first use and kept in
// node_modules/.cache/snapdeck-cli/<hash of every source file>/, so that a start loads 3 modules
// of ours instead of ~250 through a compiling loader. A start went from 0.9-1.3 s to 0.3-0.4 s
// (`snapdeck --version`, idle machine); the test suite starts the CLI ~265 times.
//
// Nothing else changes: esbuild removes the types as ts-loader.mjs does, third-party packages stay
// imported from node_modules, each source keeps its own import.meta.url (files found next to a
// source are found), the worker file stays where it is, and the inline source maps still name the
// .ts files and lines. Any source edited makes another hash, so another bundle.
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = join(ROOT, 'packages');
const CACHE = join(ROOT, 'node_modules', '.cache', 'snapdeck-cli');
const ENTRY = join(PACKAGES, 'cli', 'src', 'main.ts');
/** Bundles older than this are removed when a new one is made (edits leave old ones behind). */
const STALE_MS = 7 * 24 * 3600 * 1000;

/** Every file a bundle is made from: each package's sources and manifest, and how it is made (this file). */
async function sources() {
  const files = [fileURLToPath(import.meta.url)];
  for (const name of (await readdir(PACKAGES)).sort()) {
    files.push(join(PACKAGES, name, 'package.json'));
    const src = join(PACKAGES, name, 'src');
    const entries = await readdir(src, { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isFile() && /\.(?:ts|cjs|mjs|js|json)$/.test(entry.name)) files.push(join(entry.parentPath ?? entry.path, entry.name));
    }
  }
  return files.sort();
}

async function keyOf(esbuildVersion) {
  // ROOT too: a bundle holds absolute paths (each source's import.meta.url, the worker file), so a
  // clone moved elsewhere, or a second worktree sharing these node_modules, makes its own.
  const hash = createHash('sha256').update(`${ROOT}\0${process.versions.node}\0${esbuildVersion}\0`);
  for (const file of await sources()) hash.update(`${relative(ROOT, file)}\0`).update(await readFile(file)).update('\0');
  return hash.digest('hex').slice(0, 32);
}

/** Each source's import.meta.url as its own file's URL, not the bundle's. */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
      loader: 'ts',
    }));
  },
};

/** Third-party packages and .cjs files (the compression worker) are imported from where they are. */
const keepOutside = {
  name: 'keep-outside',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@snapdeck/') || args.path.startsWith('node:') ? undefined : { path: args.path, external: true }));
    build.onResolve({ filter: /\.cjs$/ }, (args) => ({ path: join(args.resolveDir, args.path), external: true }));
  },
};

async function make(esbuild, dir) {
  const temporary = `${dir}.${process.pid}.tmp`;
  await rm(temporary, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: { main: ENTRY },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${process.versions.node}`,
    outdir: temporary,
    sourcemap: 'inline',
    plugins: [ownUrls, keepOutside],
    logLevel: 'silent',
  });
  try {
    await rename(temporary, dir);
  } catch (error) {
    // Another start made the same bundle first: use it.
    await rm(temporary, { recursive: true, force: true });
    if (!(await stat(join(dir, 'main.js')).catch(() => null))) throw error;
  }
  const now = Date.now();
  for (const name of await readdir(CACHE)) {
    const other = join(CACHE, name);
    if (other !== dir && now - ((await stat(other).catch(() => null))?.mtimeMs ?? now) > STALE_MS) await rm(other, { recursive: true, force: true });
  }
}

/** The URL of the bundled entry for these sources (made when missing), or null when none can be made here. */
export async function bundledEntry() {
  try {
    const require = createRequire(import.meta.url);
    const dir = join(CACHE, await keyOf(require('esbuild/package.json').version));
    const main = join(dir, 'main.js');
    if (!(await stat(main).catch(() => null))) {
      await mkdir(CACHE, { recursive: true });
      await make(await import('esbuild'), dir);
    }
    return pathToFileURL(main).href;
  } catch {
    return null; // a read-only tree, a full disk: the sources are compiled on load instead
  }
}
