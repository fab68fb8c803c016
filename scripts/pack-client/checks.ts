/**
 * What a partner sees of the packed client, checked outside the repository: the tarball installed
 * into an empty project under the system's temporary folder (where no node_modules of this
 * checkout can be reached), a consumer type-checked with `tsc --strict`, and the bytes a browser
 * loads for walkCards. Used by `npm run pack:client` (its Targets table) and the package's test.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { build } from 'esbuild';
import { ROOT } from './stage.ts';

const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[], cwd: string): Run {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** An empty ESM project under the system's temporary folder with the tarball installed. */
export async function installIntoEmptyProject(tarball: string): Promise<{ dir: string; install: Run }> {
  const dir = await mkdtemp(join(tmpdir(), 'snapdeck-client-consumer-'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // --offline: the package has no dependency, so nothing may need the registry.
  const install = run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], dir);
  if (install.status !== 0) throw new Error(`npm install ${tarball} failed:\n${install.stderr}`);
  return { dir, install };
}

/** A consumer of the installed package, typed by walkCards('digimon')'s hits. */
export const TYPED_CONSUMER = `import { SnapdeckClient, type DigimonHit, type GameSlug } from '@snapdeck/client';

const client = new SnapdeckClient({ baseUrl: 'https://api.example.com/v1', apiKey: 'sd_live_0' });
const version: string = SnapdeckClient.version;
const game: GameSlug = 'digimon';
const names: string[] = [];
for await (const hit of client.walkCards(game === 'digimon' ? 'digimon' : 'digimon', { hitsPerPage: 100 })) {
  const typed: DigimonHit = hit;
  const level: number = hit.level;
  names.push(typed.name.english, hit.cardArts[0]?.url ?? '', String(level));
}
export { names, version };
`;

/** The same consumer with one deliberate mistake: a digimon hit's name is an object, not a string. */
export const WRONG_CONSUMER = TYPED_CONSUMER.replace('names.push(typed.name.english,', 'names.push(typed.name,');

/** `tsc --strict --noEmit` on `source` in the installed project (no @types: lib ES2022 + DOM). */
export async function typecheck(projectDir: string, source: string): Promise<Run> {
  await writeFile(join(projectDir, 'consumer.ts'), source);
  await writeFile(
    join(projectDir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [] }, files: ['consumer.ts'] }),
  );
  return run(process.execPath, [TSC, '-p', 'tsconfig.json'], projectDir);
}

/** Minified + brotli bytes of what a browser loads to walk cards with the installed package. */
export async function browserWalkSize(projectDir: string): Promise<{ minified: number; brotli: number }> {
  const result = await build({
    stdin: {
      contents: "import { SnapdeckClient } from '@snapdeck/client';\nexport const walk = (baseUrl, apiKey) => new SnapdeckClient({ baseUrl, apiKey }).walkCards('digimon');\n",
      resolveDir: projectDir,
      loader: 'js',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0]!.contents;
  return { minified: bytes.length, brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length };
}
