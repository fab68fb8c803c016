import { Command, InvalidArgumentError, Option } from 'commander';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import {
  DEFAULT_GC_KEEP, DEFAULT_GC_MIN_AGE_HOURS, DEFAULT_KEEP_CHANGES_DAYS, collectGarbage, openStorage, type GcDecision,
} from '@snapdeck/snapshot';
import { nonNegativeInteger } from '../options.ts';
import { outputOf } from '../output.ts';

function hours(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('must be a number of hours (0 or more)');
  return Number(value);
}

function days(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('must be a number of days (0 or more)');
  return Number(value);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

export function registerGcCommand(program: Command): void {
  program
    .command('gc')
    .description('Delete old snapshot versions (every file of them), never the current one nor a recent one')
    .option('--out <location>', 'snapshot location: a folder, or s3://bucket/prefix', OPERATOR_DEFAULTS.snapshots)
    .option('--keep <n>', 'versions kept per game, newest first (the current one is always kept)', nonNegativeInteger, DEFAULT_GC_KEEP)
    .option('--min-age <hours>', 'never delete a version younger than this', hours, DEFAULT_GC_MIN_AGE_HOURS)
    .option('--keep-changes-days <days>', 'keep card change records (what each build changed) this many days', days, DEFAULT_KEEP_CHANGES_DAYS)
    .addOption(new Option('--game <slug...>', 'collect only these games (repeatable); default: every public game'))
    .option('--dry-run', 'print what would be deleted, and delete nothing')
    .addHelpText(
      'after',
      `
A version is deleted only when it is not current, not among the --keep newest, and older than
--min-age (by the time in its id). Partners walking a deleted version get 400 "Invalid cursor"
and start their walk again, so keep --min-age above your longest walk. Each version is printed
with what happens to it and why; the last line sums it up. Card change records (what each build
changed, for GET /v1/games/{slug}/changes) outlive the versions: they go after --keep-changes-days;
a partner syncing from an older version gets 410 and walks the catalog again.

Examples:
  npx snapdeck gc --dry-run
  npx snapdeck gc --keep 5 --min-age 72
  npx snapdeck gc --out s3://my-bucket/snapdeck --game digimon`,
    )
    .action(async (options: { out: string; keep: number; minAge: number; keepChangesDays: number; game?: string[]; dryRun?: boolean }, command: Command) => {
      const { out } = outputOf(command);
      const storage = openStorage(options.out);
      const dryRun = options.dryRun === true;
      const print = (d: GcDecision) => {
        const verb = d.action === 'keep' ? 'keep  ' : dryRun ? 'would delete' : 'delete';
        const partial = d.complete ? '' : ', no manifest';
        out(`${d.game} ${d.version}: ${verb} (${d.files} files, ${megabytes(d.bytes)}${partial}): ${d.reasons.join('; ')}\n`);
      };
      try {
        const result = await collectGarbage({
          storage,
          games: options.game ?? [],
          keep: options.keep,
          minAgeHours: options.minAge,
          keepChangesDays: options.keepChangesDays,
          dryRun,
          onDecision: print,
        });
        const kept = result.decisions.filter((d) => d.action === 'keep').length;
        out(
          `${dryRun ? 'dry run: would delete' : 'deleted'} ${result.deletedVersions} version(s), ${result.deletedFiles} file(s), ` +
            `${megabytes(result.deletedBytes)}, ${result.deletedClaims} build claim(s); kept ${kept} version(s) at ${storage.location}\n`,
        );
        if (result.deletedChangeRecords > 0) {
          out(`${dryRun ? 'dry run: would delete' : 'deleted'} ${result.deletedChangeRecords} card change record(s) older than ${options.keepChangesDays} day(s)\n`);
        }
        if (result.deletedTemporaries > 0) {
          out(
            `${dryRun ? 'dry run: would remove' : 'removed'} ${result.deletedTemporaries} temporary file(s) left by interrupted writes ` +
              `(${megabytes(result.deletedTemporaryBytes)}, untouched for over an hour)\n`,
          );
        }
      } finally {
        await storage.close?.();
      }
    });
}
