import { Command, Option } from 'commander';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { DEFAULT_HITS_PER_PAGE, build, openStorage, type BuildProgress } from '@snapdeck/snapshot';
import { hitsPerPageList } from '../options.ts';
import { outputOf } from '../output.ts';
import { progressReporter } from '../progress.ts';

export function registerBuildCommand(program: Command): void {
  program
    .command('build')
    .description('Validate each game catalog and publish a new immutable snapshot version of it')
    .option('--catalog <dir>', 'folder of <game>.jsonl catalogs, one full card per line', OPERATOR_DEFAULTS.catalogDir)
    .option('--out <location>', 'where to publish: a folder, or s3://bucket/prefix', OPERATOR_DEFAULTS.snapshots)
    .addOption(new Option('--game <slug...>', 'build only these games (repeatable); default: every public game with a catalog file'))
    .addOption(
      new Option('--hits-per-page <list>', 'comma-separated hitsPerPage values to pre-render (others are assembled on request)')
        .argParser(hitsPerPageList)
        .default([...DEFAULT_HITS_PER_PAGE], DEFAULT_HITS_PER_PAGE.join(',')),
    )
    .addHelpText(
      'after',
      `
Every card is validated first; one bad card fails the whole build with file:line, field and
reason, and nothing is published. Each game then gets a new version whose files are written
before the game's current.json points at it, so gateways switch over only to complete versions.
Older versions are kept, so partners walking an older version finish their walk (remove old
ones with \`snapdeck gc\`).

An interrupted build is finished by running the same command again: files already uploaded
with the same checksum are skipped. Building a catalog that is already current does nothing.
If another build moves current.json while this one runs, this one fails and leaves it alone.

S3 locations (s3://bucket/prefix) use the standard AWS configuration (AWS_REGION, default
us-east-1; credentials from the default chain) and SNAPDECK_S3_ENDPOINT for S3-compatible stores.

Examples:
  npx snapdeck build
  npx snapdeck build --game digimon --hits-per-page 1,20,100,1000
  npx snapdeck build --catalog data/real --out /srv/snapdeck/snapshots
  npx snapdeck build --out s3://my-bucket/snapdeck`,
    )
    .action(async (options: { catalog: string; out: string; game?: string[]; hitsPerPage: number[] }, command: Command) => {
      const { out } = outputOf(command);
      // The progress line is for a terminal: it looks at the process's stderr itself.
      const reporter = progressReporter(process.stderr);
      try {
        const storage = openStorage(options.out);
        const results = await build({
          catalogDir: options.catalog,
          storage,
          games: options.game ?? [],
          hitsPerPage: options.hitsPerPage,
          onProgress: (progress: BuildProgress) => reporter.update(`${progress.game} ${progress.phase}`, progress.done, progress.total),
          onNotice: (message) => reporter.note(message),
        });
        reporter.done();
        for (const r of results) {
          if (r.alreadyCurrent) {
            out(`${r.game}: ${r.totalHits} cards -> version ${r.version} is already current at ${storage.location}; nothing to do\n`);
            continue;
          }
          const skipped = `${r.skipped} skipped as already uploaded${r.skipped > 0 ? ` (${(r.skippedBytes / 1e6).toFixed(1)} MB)` : ''}`;
          out(
            `${r.game}: ${r.totalHits} cards -> version ${r.version} (${r.files} files, ${(r.bytes / 1e6).toFixed(1)} MB, ${skipped}${r.resumed ? ', resumed' : ''}) in ${r.seconds.toFixed(1)} s at ${storage.location}\n`,
          );
        }
        await storage.close?.();
      } finally {
        reporter.done();
      }
    });
}
