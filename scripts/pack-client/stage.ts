/**
 * Lays out the publishable @snapdeck/client in a folder: dist/index.js (ESM, one file for Node
 * and browsers, the contract's little runtime inlined) with its source map, dist/*.d.ts (the
 * client's declarations, the contract's types spelled out in dist/contract.d.ts), a CommonJS
 * stub that says how to load the package, README, LICENSE, CHANGELOG and the package.json a
 * partner installs (no dependencies). The repository itself keeps importing packages/client/src.
 */
import { copyFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';
import { contractDeclarations, contractImports } from './contract-types.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLIENT_DIR = join(ROOT, 'packages', 'client');
const CONTRACT_INDEX = join(ROOT, 'packages', 'contract', 'src', 'index.ts');

/** What a CommonJS require() of the package throws (the package is ESM only: docs/partners/client.md). */
export const REQUIRE_MESSAGE =
  "@snapdeck/client is an ES module: load it with import, or from CommonJS with `const { SnapdeckClient } = await import('@snapdeck/client')`.";

interface WorkspaceManifest {
  name: string;
  version: string;
  description: string;
  license: string;
  engines: Record<string, string>;
}

export async function workspaceManifest(): Promise<WorkspaceManifest> {
  return JSON.parse(await readFile(join(CLIENT_DIR, 'package.json'), 'utf8')) as WorkspaceManifest;
}

/** The package.json of the published package, from the workspace one (name, version, terms). */
function publishedManifest(workspace: WorkspaceManifest): Record<string, unknown> {
  return {
    name: workspace.name,
    version: workspace.version,
    description: workspace.description,
    license: workspace.license,
    type: 'module',
    exports: {
      '.': { types: './dist/index.d.ts', require: './dist/require.cjs', import: './dist/index.js', default: './dist/index.js' },
      './package.json': './package.json',
    },
    types: './dist/index.d.ts',
    sideEffects: false,
    engines: workspace.engines,
    files: ['dist', 'README.md', 'LICENSE', 'CHANGELOG.md'],
  };
}

/** package.json read by the client's version.ts becomes its version alone in the bundle. */
function versionOnly(version: string): Plugin {
  return {
    name: 'client-version-only',
    setup(builder) {
      builder.onLoad({ filter: /[\\/]packages[\\/]client[\\/]package\.json$/ }, () => ({ contents: JSON.stringify({ version }), loader: 'json' }));
    },
  };
}

async function bundle(outDir: string, version: string): Promise<void> {
  await build({
    entryPoints: [join(CLIENT_DIR, 'src', 'index.ts')],
    outfile: join(outDir, 'index.js'),
    bundle: true,
    format: 'esm',
    // Neither Node nor browser: a Node built-in anywhere in the graph fails the build.
    platform: 'neutral',
    target: 'es2022',
    sourcemap: true,
    sourcesContent: true,
    sourceRoot: '',
    legalComments: 'none',
    // The one library bundled (the search query logic's edit distance): its license kept with its code, as it asks.
    banner: { js: `/*! damerau-levenshtein: ${(await readFile(createRequire(import.meta.url).resolve('damerau-levenshtein/LICENSE'), 'utf8')).trim().replaceAll('*/', '* /')} */` },
    plugins: [versionOnly(version)],
    logLevel: 'silent',
  });
  // Source paths in the map name the package, not this checkout's layout.
  const mapFile = join(outDir, 'index.js.map');
  const map = JSON.parse(await readFile(mapFile, 'utf8')) as { sources: string[] };
  map.sources = map.sources.map((source) => `snapdeck://${relative(ROOT, resolve(outDir, source)).replaceAll('\\', '/')}`);
  await writeFile(mapFile, JSON.stringify(map));
}

/** The client's declarations (tsc), the contract's imports pointed at dist/contract.d.ts. */
async function declarations(outDir: string, work: string): Promise<void> {
  const srcDir = join(CLIENT_DIR, 'src');
  const sources = (await readdir(srcDir)).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts')).map((name) => join(srcDir, name));
  const contract = contractDeclarations(CONTRACT_INDEX, contractImports(sources));
  const contractFile = join(work, 'contract.d.ts');
  await writeFile(contractFile, contract);
  const program = ts.createProgram([join(srcDir, 'index.ts')], {
    declaration: true,
    emitDeclarationOnly: true,
    outDir: join(work, 'types'),
    rootDir: srcDir,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    allowImportingTsExtensions: true,
    resolveJsonModule: true,
    skipLibCheck: true,
    paths: { '@snapdeck/contract': [contractFile], '@snapdeck/contract/*': [contractFile] },
  });
  const result = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (problems.length > 0) throw new Error(ts.formatDiagnostics(problems, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' }));
  await writeFile(join(outDir, 'contract.d.ts'), contract);
  for (const name of await readdir(join(work, 'types'))) {
    const text = await readFile(join(work, 'types', name), 'utf8');
    // tsc keeps module specifiers as written: the contract's become the spelled-out file, and
    // the source's .ts extensions the .js a consumer's resolver expects.
    const rewritten = text.replace(/(from\s+|import\()(["'])@snapdeck\/contract(?:\/[\w-]+)?\2/g, '$1$2./contract.js$2').replace(/(["'])(\.\.?\/[^"']+)\.ts\1/g, '$1$2.js$1');
    if (/@snapdeck\/contract|\.ts["']/.test(rewritten)) throw new Error(`${name}: a specifier still points into the workspace`);
    await writeFile(join(outDir, name), rewritten);
  }
}

/** Writes the package into `packageDir` (empty or absent); `work` is a scratch folder. */
export async function stageClientPackage(packageDir: string, work: string): Promise<WorkspaceManifest> {
  const workspace = await workspaceManifest();
  const dist = join(packageDir, 'dist');
  await mkdir(dist, { recursive: true });
  await bundle(dist, workspace.version);
  await declarations(dist, work);
  await writeFile(join(dist, 'require.cjs'), `'use strict';\nthrow new Error(${JSON.stringify(REQUIRE_MESSAGE)});\n`);
  for (const file of ['README.md', 'LICENSE', 'CHANGELOG.md']) await copyFile(join(CLIENT_DIR, file), join(packageDir, file));
  await writeFile(join(packageDir, 'package.json'), `${JSON.stringify(publishedManifest(workspace), null, 2)}\n`);
  return workspace;
}
