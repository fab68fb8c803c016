import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { OPERATOR_DEFAULTS, OperatorError } from '@snapdeck/contract';
import {
  PRESENCE_MISSED_INTERVALS, RestoreTargetExistsError, lagSeconds, openDatabase, publishStore, restoreStore, storeGatewaysStatus, type StoreGatewaysStatus,
} from '@snapdeck/store';
import { outputOf } from '../output.ts';
import { dbOption, keepDeckChangesDaysOption, pruneDeckFeed } from '../options.ts';
import { PUBLISH_ENV, describePublish, publishFailure, publishTarget } from '../publish.ts';
import { openStoreLocation } from '../store-location.ts';

/** `snapdeck store publish|restore|status` (decisions.md "Operator interface", "The published store"). */
export function registerStoreCommand(program: Command): void {
  const store = program
    .command('store')
    .description('publish the writer database (keys, tokens, decks) for stateless gateways, or restore a writer from what is published');
  registerStoreStatus(store);

  store
    .command('publish')
    .description('publish the keys, tokens and decks of the writer database as a new store version (a no-op when nothing changed)')
    .option('--to <location>', `a folder or s3://bucket/prefix, the same as the card snapshots' or another (default: $${PUBLISH_ENV})`)
    .addOption(dbOption('the writer database'))
    .addOption(keepDeckChangesDaysOption())
    .addHelpText(
      'after',
      `
Only what changed is sent: keys and tokens (small) and decks (large) are separate parts, so a
key change publishes kilobytes whatever the number of decks. There is one writer per store: a
database that did not publish the current version (or was not restored from it) is refused. A
pointer put back to a version older than this database published is reported, and the store is
moved forward again from this database (nothing it holds is lost).

Examples:
  $ npx snapdeck store publish --to snapshots
  $ npx snapdeck store publish --to s3://my-bucket/snapdeck --db /var/lib/snapdeck/snapdeck.db`,
    )
    .action(async (options: { to?: string; db: string; keepDeckChangesDays: number }, command: Command) => {
      const location = publishTarget(options.to);
      if (location === undefined) throw new OperatorError(`where to? Give --to LOCATION (a folder or s3://bucket/prefix) or set ${PUBLISH_ENV}. Nothing was published.`);
      if (!existsSync(options.db)) throw new OperatorError(`there is no database at ${options.db}; nothing was published`);
      const driver = openStoreLocation(location, `--to ${location}`);
      const db = openDatabase(options.db);
      try {
        pruneDeckFeed(db, options.keepDeckChangesDays, outputOf(command).err);
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
    .option('--version <version>', 'restore this store version instead of the one the pointer names (needed when a newer one is there)')
    .option('--force', 'replace the file if it exists (its keys, tokens and decks are lost)')
    .addHelpText(
      'after',
      `
The restored database may publish to that location again (it is derived from the version
restored; its next publish moves the store forward from there). Every checksum is verified; a
damaged version is refused and nothing is written. A pointer naming an older version than the
newest one at the location (it was put back) is refused unless --version says which to take.

Examples:
  $ npx snapdeck store restore --from s3://my-bucket/snapdeck --db /var/lib/snapdeck/snapdeck.db
  $ npx snapdeck store restore --from s3://my-bucket/snapdeck --db new.db --version 2026-11-22T11-05-12-345Z-1a2b3c`,
    )
    .action(async (options: { from: string; db: string; force?: boolean; version?: string }, command: Command) => {
      const driver = openStoreLocation(options.from, `--from ${options.from}`);
      try {
        const result = await restoreStore(driver, options.db, { force: options.force, version: options.version });
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

/** `snapdeck store status --at LOCATION`: the current version and what each following gateway serves. */
function registerStoreStatus(store: Command): void {
  store
    .command('status')
    .description('show the store version current at a location and, for every gateway following it, what it serves and how far behind it is')
    .requiredOption('--at <location>', 'a folder or s3://bucket/prefix where the store is published')
    .option('--json', 'print JSON instead of a table')
    .addHelpText(
      'after',
      `
Every gateway following the store (serve --store) rewrites a small record of what it serves at
LOCATION/_store/gateways/ when that changes and every ${OPERATOR_DEFAULTS.storePresenceMs / 1000} s, and removes it when it stops. LAG
is how far the versions it serves are behind the current one (by the times in their ids); a
gateway whose record was not rewritten for ${PRESENCE_MISSED_INTERVALS} of its intervals is shown gone: purges do not wait for it.

Example:
  $ npx snapdeck store status --at s3://my-bucket/snapdeck`,
    )
    .action(async (options: { at: string; json?: boolean }, command: Command) => {
      const driver = openStoreLocation(options.at, `--at ${options.at}`);
      try {
        const status = await storeGatewaysStatus(driver);
        if (options.json) outputOf(command).out(`${JSON.stringify(status, null, 2)}\n`);
        else outputOf(command).out(statusTable(status));
        if (!status.current) throw new OperatorError(`no store has been published at ${options.at}`);
      } finally {
        await driver.close?.();
      }
    });
}

function statusTable(status: StoreGatewaysStatus): string {
  const lines = [status.current ? `store at ${status.location}: version ${status.current.version}, published ${status.current.publishedAt}` : `store at ${status.location}: nothing published`];
  if (status.gateways.length === 0) lines.push('no gateway following it has written a record');
  const seconds = (s: number) => (Number.isFinite(s) ? `${s.toFixed(1)} s` : 'unknown');
  const rows = status.gateways.map(({ record, ageMs, gone, serves }) => {
    const behind: string[] = [];
    if (status.current && serves && !serves.auth) behind.push(`keys ${seconds(lagSeconds(record.version, status.current.version))}`);
    if (status.current && serves && !serves.decks) behind.push(`decks ${seconds(lagSeconds(record.decksVersion, status.current.version))}`);
    const lag = !status.current ? '-' : behind.length === 0 ? 'none' : `${behind.join(', ')} behind`;
    return [record.gateway, record.host, String(record.pid), record.version, record.decksVersion, lag, `${seconds(ageMs / 1000)} ago`, gone ? 'gone' : 'live'];
  });
  if (rows.length > 0) {
    const header = ['GATEWAY', 'HOST', 'PID', 'VERSION', 'DECKS VERSION', 'LAG', 'LAST SEEN', 'STATE'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows]) lines.push(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
  }
  for (const key of status.unreadable) lines.push(`${key}: not a valid gateway record (ignored)`);
  return `${lines.join('\n')}\n`;
}
