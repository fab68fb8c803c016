import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { browserWalkSize, installIntoEmptyProject, run, typecheck, TYPED_CONSUMER, WRONG_CONSUMER, type Run } from './checks.ts';
import { stageClientPackage } from './stage.ts';

/** The most a browser may load to walk cards with the client (bytes, brotli). */
export const BROWSER_BROTLI_TARGET = 15_000;

export interface PackedClient {
  tarball: string;
  files: string[];
  size: number;
  unpackedSize: number;
  installWarnings: string[];
  publishWarnings: string[];
  browser: { minified: number; brotli: number };
  typed: Run;
  wrong: Run;
}

/** npm's warnings in `output`; `ignore` drops those that are about this machine, not the package. */
const warnings = (output: string, ignore?: RegExp) => output.split('\n').filter((line) => /\b(warn|WARN|peer)\b/.test(line) && !ignore?.test(line));

/** A dry run on a machine logged in to no registry says so: nothing about the package. */
const NOT_LOGGED_IN = /requires you to be logged in/;

/** Stages and packs the client into `out`, then checks the tarball from outside the repository. */
export async function packClient(out: string, work: string): Promise<PackedClient> {
  const packageDir = join(work, 'package');
  await mkdir(out, { recursive: true });
  await stageClientPackage(packageDir, work);
  const pack = run('npm', ['pack', packageDir, '--pack-destination', out, '--json'], work);
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}`);
  const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>;
  const tarball = join(out, info!.filename);
  const publish = run('npm', ['publish', '--dry-run', tarball], work);
  if (publish.status !== 0) throw new Error(`npm publish --dry-run failed:\n${publish.stderr}`);
  const { dir, install } = await installIntoEmptyProject(tarball);
  try {
    return {
      tarball,
      files: info!.files.map((file) => file.path).sort(),
      size: info!.size,
      unpackedSize: info!.unpackedSize,
      installWarnings: warnings(install.stderr + install.stdout),
      publishWarnings: warnings(publish.stderr, NOT_LOGGED_IN),
      browser: await browserWalkSize(dir),
      typed: await typecheck(dir, TYPED_CONSUMER),
      wrong: await typecheck(dir, WRONG_CONSUMER),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
