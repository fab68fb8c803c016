/**
 * Packs @snapdeck/client for partners: `npm run pack:client [-- --out dist/packages]` writes
 * snapdeck-client-<version>.tgz (scripts/pack-client/stage.ts says what it holds), then checks it
 * from outside the repository and prints the client package's targets table with what was measured.
 * Publishing, once decided: `npm publish dist/packages/snapdeck-client-<version>.tgz`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BROWSER_BROTLI_TARGET, packClient } from './pack-client/pack.ts';

const args = process.argv.slice(2);
const out = resolve(args.includes('--out') ? args[args.indexOf('--out') + 1]! : 'dist/packages');
const work = await mkdtemp(join(tmpdir(), 'snapdeck-pack-client-'));
try {
  const packed = await packClient(out, work);
  const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
  console.log(`${packed.tarball}\n${packed.files.length} files: ${packed.files.join(', ')}\n`);
  console.log('| figure | target | measured |');
  console.log('|---|---|---|');
  console.log(`| tarball installs into an empty project outside the repository (\`npm install ./tarball\`) | yes, no warning about missing peers | ${packed.installWarnings.length === 0 ? 'yes, no warning' : `yes, with warnings: ${packed.installWarnings.join(' / ')}`} |`);
  console.log(`| packed size / minified + brotli size of what a browser loads for \`walkCards\` | print both; ≤ ${kB(BROWSER_BROTLI_TARGET)} brotli without search | ${kB(packed.size)} packed (${kB(packed.unpackedSize)} unpacked) / ${kB(packed.browser.minified)} minified, ${kB(packed.browser.brotli)} brotli (${packed.browser.brotli <= BROWSER_BROTLI_TARGET ? 'ok' : 'MISSED'}) |`);
  console.log(`| \`tsc --strict --noEmit\` on a consumer using \`walkCards('digimon')\`'s typed hits | passes; a deliberate type error in it fails | ${packed.typed.status === 0 ? 'passes' : 'FAILS'}; the deliberate error ${packed.wrong.status !== 0 ? `fails (${/error (TS\d+)/.exec(packed.wrong.stdout)?.[1] ?? 'error'})` : 'PASSES (wrong)'} |`);
  console.log(`| \`npm publish --dry-run\` | clean | ${packed.publishWarnings.length === 0 ? 'clean (npm notes only that this machine is logged in to no registry)' : packed.publishWarnings.join(' / ')} |`);
  if (packed.typed.status !== 0) console.error(packed.typed.stdout);
  const ok = packed.installWarnings.length === 0 && packed.publishWarnings.length === 0 && packed.typed.status === 0 && packed.wrong.status !== 0 && packed.browser.brotli <= BROWSER_BROTLI_TARGET;
  process.exitCode = ok ? 0 : 1;
} finally {
  await rm(work, { recursive: true, force: true });
}
