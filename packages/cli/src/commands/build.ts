import { Command, Option } from 'commander';
import { BuildUsageError, CatalogInvalidError, DEFAULT_HITS_PER_PAGE, build, openStorage, parseHitsPerPageList, type BuildProgress } from '@snapdeck/snapshot';
import { progressReporter } from '../progress.ts';

export function registerBuildCommand(program: Command): void {
  program
    .command('build')
    .description('Validate each game catalog and publish a new immutable snapshot version of it')
    .option('--catalog <dir>', 'folder of <game>.jsonl catalogs, one full card per line', 'data/catalog')
    .option('--out <location>', 'where to publish: a folder, or s3://bucket/prefix', 'snapshots')
    .addOption(new Option('--game <slug...>', 'build only these games (repeatable); default: every public game with a catalog file'))
    .option('--hits-per-page <list>', 'comma-separated hitsPerPage values to pre-render (others are assembled on request)', DEFAULT_HITS_PER_PAGE.join(','))
    .addHelpText(
      'after',
      `
Every card is validated first; one bad card fails the whole build with file:line, field and
reason, and nothing is published. Each game then gets a new version whose files are written
before the game's current.json points at it, so gateways switch over only to complete versions.
Older versions are kept, so partners walking an older version finish their walk.

Examples:
  npx snapdeck build
  npx snapdeck build --game digimon --hits-per-page 1,20,100,1000
  npx snapdeck build --catalog data/real --out /srv/snapdeck/snapshots`,
    )
    .action(async (options: { catalog: string; out: string; game?: string[]; hitsPerPage: string }) => {
      const reporter = progressReporter(process.stderr);
      try {
        const storage = openStorage(options.out);
        const results = await build({
          catalogDir: options.catalog,
          storage,
          games: options.game ?? [],
          hitsPerPage: parseHitsPerPageList(options.hitsPerPage),
          onProgress: (progress: BuildProgress) => reporter.update(`${progress.game} ${progress.phase}`, progress.done, progress.total),
          onNotice: (message) => reporter.note(message),
        });
        reporter.done();
        for (const r of results) {
          console.log(
            `${r.game}: ${r.totalHits} cards -> version ${r.version} (${r.files} files, ${(r.bytes / 1e6).toFixed(1)} MB) in ${r.seconds.toFixed(1)} s at ${storage.location}`,
          );
        }
        await storage.close?.();
      } catch (error) {
        reporter.done();
        if (error instanceof CatalogInvalidError || error instanceof BuildUsageError) {
          console.error(`snapdeck build: ${error.message}`);
          process.exit(1);
        }
        throw error;
      }
    });
}
