import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { OPERATOR_DEFAULTS, OperatorError, QUOTA_MAX } from '@snapdeck/contract';
import { parseHitsPerPageList } from '@snapdeck/snapshot';
import { pruneDeckChanges, type Db } from '@snapdeck/store';

/** Commander parser for options that take a positive whole number (quotas, sizes). */
export function positiveInteger(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
}

/**
 * Commander parser for a quota (requests per 15-minute window): a positive whole number the
 * RateLimit headers can carry, which are RFC 8941 Integers of at most 15 digits.
 */
export function quota(value: string): number {
  const n = positiveInteger(value);
  if (n > QUOTA_MAX) {
    throw new InvalidArgumentError(`must be at most ${QUOTA_MAX} (15 digits): the RateLimit headers carry the quota as an RFC 8941 integer, which has at most 15 digits`);
  }
  return n;
}

/** Commander parser for counts where 0 means "none" (trusted proxy hops). */
export function nonNegativeInteger(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number (0 or more)');
  return Number(value);
}

/** Commander parser for `build --hits-per-page 1,100,1000` (the rule itself: @snapdeck/snapshot). */
export function hitsPerPageList(value: string): number[] {
  try {
    return parseHitsPerPageList(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/**
 * How a command treats its `--db` (decisions.md "Running it"): `existing` refuses a path that
 * does not exist (no silent empty database); `create` (keys create, decks import) creates it and
 * says so on stderr; `new` (store restore) writes the file itself.
 */
export type DbUse = 'existing' | 'create' | 'new';

const DB_USES = new WeakMap<Option, DbUse>();

/** `--db <file>`, the SQLite database of keys, tokens and decks, on every command that opens it. */
export function dbOption(description: string, use: DbUse = 'existing'): Option {
  const option = new Option('--db <file>', description).default(OPERATOR_DEFAULTS.db);
  DB_USES.set(option, use);
  return option;
}

/**
 * The database rule, run before every command's action (program.ts): a `--db` that does not
 * exist is refused naming the path, or created with a line on stderr, as the command's dbOption
 * says. A command given `--store` instead (serve) opens no database.
 */
export function checkDatabase(command: Command, err: (text: string) => void): void {
  const option = command.options.find((o) => o.attributeName() === 'db');
  const use = option && DB_USES.get(option);
  if (!use || use === 'new' || command.getOptionValue('store') !== undefined) return;
  const path = command.getOptionValue('db') as string;
  if (existsSync(path)) return;
  if (use === 'existing') {
    throw new OperatorError(`database ${path} does not exist: give --db the path of an existing database (\`keys create\` and \`decks import\` create one)`);
  }
  // A folder this process cannot write (a volume owned by another user, say) is said as such
  // here, not as SQLite's "unable to open database file" after the line below.
  if (existsSync(dirname(path))) checkWritableFolder(dirname(path), `the database ${path}: its folder`);
  err(`creating a new database at ${path}\n`);
}

/**
 * Refuses, in one line, a folder this process cannot write: what a container's volume owned by
 * another user, or a read-only filesystem, would otherwise fail with later (a gateway's store
 * download, a new database). A folder that does not exist yet is left to the command, which
 * creates it.
 */
export function checkWritableFolder(folder: string, what: string): void {
  if (!existsSync(folder)) return;
  try {
    accessSync(folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new OperatorError(`${what} ${folder} is not writable by this process (${processUser()}${code === 'EROFS' ? ', on a read-only filesystem' : ''}): mount a volume there that ${processUser()} may write, or give another folder`);
  }
}

/** `uid 1000, gid 1000`: who this process writes as, for messages about folders it cannot write. */
export function processUser(): string {
  return process.getuid && process.getgid ? `uid ${process.getuid()}, gid ${process.getgid()}` : 'this user';
}

/** `--store-poll-ms` → SNAPDECK_STORE_POLL_MS. */
export function environmentVariableOf(option: Option): string {
  return `SNAPDECK_${option.attributeName().replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/**
 * `command`, every option of which (added after this call) can also come from SNAPDECK_<OPTION>
 * (commander's env(), shown in --help); a flag on the command line wins over the variable.
 * Commander reads env() when an option is added, and every way of adding one goes through
 * addOption, so that is where the variable is attached.
 */
export function optionsFromEnvironment(command: Command): Command {
  const addOption = command.addOption.bind(command);
  command.addOption = (option: Option) => addOption(option.long && !option.envVar ? option.env(environmentVariableOf(option)) : option);
  return command;
}

/**
 * `--keep-deck-changes-days DAYS` on the writer commands that prune (decks import, store publish):
 * deck removals older than this leave the deck change feed, and cursors from before them answer
 * 410 (decisions.md "Deck changes").
 */
export function keepDeckChangesDaysOption(): Option {
  return new Option('--keep-deck-changes-days <days>', 'keep deck removals in the deck change feed (GET /v1/decks/changes) this many days; partners whose checkpoint is older enumerate again')
    .argParser(nonNegativeInteger)
    .default(OPERATOR_DEFAULTS.keepDeckChangesDays);
}

/** Prunes the deck change feed as `--keep-deck-changes-days` says; a line on stderr when something went. */
export function pruneDeckFeed(db: Db, keepDays: number, err: (text: string) => void): void {
  const { removed } = pruneDeckChanges(db, keepDays);
  if (removed > 0) err(`pruned ${removed} deck removal(s) older than ${keepDays} day(s) from the deck change feed\n`);
}

