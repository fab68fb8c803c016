import { Option, type Command } from 'commander';
import type { StorageDriver } from '@snapdeck/snapshot';
import { OPERATOR_DEFAULTS, OperatorError } from '@snapdeck/contract';
import { StoreLineageError, publishStore, rolledBackMessage, type Db, type StorePublishResult } from '@snapdeck/store';
import { positiveInteger } from './options.ts';
import { outputOf } from './output.ts';
import { openStoreLocation } from './store-location.ts';

/**
 * `--publish LOCATION` on the commands that change keys, tokens or decks, and the shared pieces of
 * `snapdeck store publish|restore` (decisions.md "Operator interface", "The published store").
 */

/** Where `--publish` / `store publish --to` come from when not given. */
export const PUBLISH_ENV = 'SNAPDECK_PUBLISH';

export function publishHelp(): string {
  return `after the change is committed, publish the store to this location (a folder or s3://bucket/prefix) and exit 0 only once it is current there (default: $${PUBLISH_ENV})`;
}

/** `--publish-timeout SECONDS`, beside every `--publish`. */
export function publishTimeoutOption(): Option {
  return new Option('--publish-timeout <seconds>', 'with --publish: give up the publish after this long (exit 1; the change stays committed and goes out with the next publish)')
    .argParser(positiveInteger)
    .default(OPERATOR_DEFAULTS.publishTimeoutSeconds);
}

/** The location from the option, else the environment; undefined: do not publish. */
export function publishTarget(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (option !== undefined) return option;
  const fromEnv = env[PUBLISH_ENV]?.trim();
  return fromEnv ? fromEnv : undefined;
}

export function describePublish(result: StorePublishResult, location: string): string {
  const warning = result.rolledBack ? `warning: ${rolledBackMessage(location, result.rolledBack)}\n` : '';
  return warning + describeVersion(result, location);
}

function describeVersion(result: StorePublishResult, location: string): string {
  if (result.alreadyCurrent) return `store version ${result.version} at ${location} is already current: nothing changed since the last publish\n`;
  const built = result.built.length > 0 ? `sent ${result.built.join(' and ')} (${(result.bytesSent / 1e6).toFixed(2)} MB)` : 'nothing new to send';
  // Said once, on the publish that had to compare every page of the decks part (the next reads the WAL again).
  const fallback = result.decksFallback ? `(every page of the decks part was compared: ${result.decksFallback})\n` : '';
  return `published store version ${result.version} to ${location}: ${built}; auth ${(result.sizes.auth / 1e3).toFixed(1)} kB, decks ${(result.sizes.decks / 1e6).toFixed(2)} MB, in ${(result.elapsedMs / 1000).toFixed(2)} s\n${fallback}`;
}

/** Where a command publishes: checked before the change is made (a bad location changes nothing). */
export interface PublishPlan {
  location: string;
  driver: StorageDriver;
  /** --publish-timeout, in seconds. */
  timeoutSeconds: number;
}

/** The `--publish` option (else $SNAPDECK_PUBLISH), opened and checked; undefined: do not publish. */
export function preparePublish(option: string | undefined, timeoutSeconds: number = OPERATOR_DEFAULTS.publishTimeoutSeconds): PublishPlan | undefined {
  const location = publishTarget(option);
  if (location === undefined) return undefined;
  return { location, driver: openStoreLocation(location, `--publish ${location}`), timeoutSeconds };
}

/** A publish that did not finish within --publish-timeout. */
class PublishTimeoutError extends Error {}

/**
 * `publishing` or, past `seconds`, a PublishTimeoutError. The publish itself is left behind (the
 * command exits: main.ts); a version it had not yet made current is as a killed publish's, which
 * the next publish picks up or reuses.
 */
function withinPublishTimeout<T>(publishing: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PublishTimeoutError(`storage gave no answer within --publish-timeout ${seconds} s`)), seconds * 1000);
  });
  // race() also handles a late rejection of `publishing`: nothing goes unhandled.
  return Promise.race([publishing, timeout]).finally(() => clearTimeout(timer));
}

/**
 * After a committed change: publishes the writer database. A failure ends the command with exit
 * 1, saying the change itself is committed and goes out with the next publish. Returns the
 * version now current that holds the change (new, or the one already current), or null when
 * there was nothing to publish to.
 */
export async function publishAfterChange(command: Command, db: Db, dbFile: string, plan: PublishPlan | undefined, change: string): Promise<{ location: string; version: string } | null> {
  if (plan === undefined) return null;
  try {
    const result = await withinPublishTimeout(publishStore(db, plan.driver), plan.timeoutSeconds);
    outputOf(command).err(describePublish(result, plan.location));
    return { location: plan.location, version: result.version };
  } catch (error) {
    throw new OperatorError(
      `${change}, but publishing the store to ${plan.location} failed: ${publishFailure(error, dbFile)}\n` +
        `The change is committed in ${dbFile}; it goes out with the next publish:\n  npx snapdeck store publish --to ${plan.location} --db ${dbFile}`,
      { cause: error },
    );
  } finally {
    await plan.driver.close?.();
  }
}

/**
 * A publish failure as the operator reads it: the library's reason, and the command that fixes
 * it. Never `restore --force` over this database: that would drop what it holds (revocations
 * among it) for what the location holds; a restore goes to a new file, and refuses a pointer
 * older than the newest version there.
 */
export function publishFailure(error: unknown, dbFile: string): string {
  const reason = (error as Error).message;
  if (error instanceof StoreLineageError) return `${reason}\n  npx snapdeck store restore --from ${error.location} --db ${dbFile}.restored`;
  return reason;
}
