import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { OperatorError } from '@snapdeck/contract';
import { RestoreTargetExistsError, openDatabase, publishStore, restoreStore } from '@snapdeck/store';
import { outputOf } from '../output.ts';
import { dbOption } from '../options.ts';
import { PUBLISH_ENV, describePublish, publishFailure, publishTarget } from '../publish.ts';
import { openStoreLocation } from '../store-location.ts';

/** `snapdeck store publish|restore` (decisions.md "Operator interface", "The published store"). */
export function registerStoreCommand(program: Command): void {
  const store = program
    .command('store')
    .description('publish the writer database (keys, tokens, decks) for stateless gateways, or restore a writer from what is published');

  store
    .command('publish')
    .description('publish the keys, tokens and decks of the writer database as a new store version (a no-op when nothing changed)')
    .option('--to <location>', `a folder or s3://bucket/prefix, the same as the card snapshots' or another (default: $${PUBLISH_ENV})`)
    .addOption(dbOption('the writer database'))
    .addHelpText(
      'after',
      `
Only what changed is sent: keys and tokens (small) and decks (large) are separate parts, so a
key change publishes kilobytes whatever the number of decks. There is one writer per store: a
database that did not publish the current version (or was not restored from it) is refused.

Examples:
  $ npx snapdeck store publish --to snapshots
  $ npx snapdeck store publish --to s3://my-bucket/snapdeck --db /var/lib/snapdeck/snapdeck.db`,
    )
    .action(async (options: { to?: string; db: string }, command: Command) => {
      const location = publishTarget(options.to);
      if (location === undefined) throw new OperatorError(`where to? Give --to LOCATION (a folder or s3://bucket/prefix) or set ${PUBLISH_ENV}. Nothing was published.`);
      if (!existsSync(options.db)) throw new OperatorError(`there is no database at ${options.db}; nothing was published`);
      const driver = openStoreLocation(location, `--to ${location}`);
      const db = openDatabase(options.db);
      try {
        const result = await publishStore(db, driver, { onProgress: (message) => outputOf(command).err(`${message}\n`) });
        outputOf(command).out(describePublish(result, location));
      } catch (error) {
        throw new OperatorError(publishFailure(error, options.db), { cause: error });
      } finally {
        db.close();
        await driver.close?.();
      }
    });

  store
    .command('restore')
    .description('write a writer database from the store version current at a location (disaster recovery, moving the writer)')
    .requiredOption('--from <location>', 'a folder or s3://bucket/prefix where the store is published')
    .addOption(dbOption('the database file to write', 'new'))
    .option('--force', 'replace the file if it exists (its keys, tokens and decks are lost)')
    .addHelpText(
      'after',
      `
The restored database may publish to that location again (it is derived from its current
version). Every checksum is verified; a damaged version is refused and nothing is written.

Example:
  $ npx snapdeck store restore --from s3://my-bucket/snapdeck --db /var/lib/snapdeck/snapdeck.db`,
    )
    .action(async (options: { from: string; db: string; force?: boolean }, command: Command) => {
      const driver = openStoreLocation(options.from, `--from ${options.from}`);
      try {
        const result = await restoreStore(driver, options.db, { force: options.force });
        outputOf(command).out(`restored ${options.db} from store version ${result.version} at ${options.from}: ${result.keys} keys, ${result.tokens} tokens, ${result.decks} decks\n`);
      } catch (error) {
        if (error instanceof RestoreTargetExistsError) {
          throw new OperatorError(`${error.message}. Add --force to replace it (its keys, tokens and decks are lost).`, { cause: error });
        }
        throw new OperatorError((error as Error).message, { cause: error });
      } finally {
        await driver.close?.();
      }
    });
}
