import { InvalidArgumentError, type Command } from 'commander';
import { OperatorError } from '@snapdeck/contract';
import { DeckStore, MAX_SHARE_TTL_SECONDS, normalizeDeckId, openDatabase } from '@snapdeck/store';
import { outputOf } from '../output.ts';
import { dbOption } from '../options.ts';
import { publishAfterChange, preparePublish, publishHelp } from '../publish.ts';

function parseTtl(value: string): number {
  const ttl = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(ttl) || ttl < 1 || ttl > MAX_SHARE_TTL_SECONDS) {
    throw new InvalidArgumentError(`a whole number of seconds from 1 to ${MAX_SHARE_TTL_SECONDS} (share tokens live at most 24 hours)`);
  }
  return ttl;
}

function parseDeckId(value: string): string {
  const id = normalizeDeckId(value);
  if (!id) throw new InvalidArgumentError('a deck id is a UUID v4, like 3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b');
  return id;
}

/**
 * Runs `issue` against the deck store and prints the token alone on stdout (so scripts can
 * capture it: TOKEN=$(npx snapdeck tokens share ...)); a deck that does not exist is an error.
 */
async function issueToken(command: Command, dbFile: string, deckId: string, publish: string | undefined, issue: (store: DeckStore) => string | null): Promise<void> {
  const location = preparePublish(publish);
  const db = openDatabase(dbFile);
  try {
    const token = issue(new DeckStore(db));
    if (token === null) throw new OperatorError(`no deck with id ${deckId} in ${dbFile}`);
    outputOf(command).out(`${token}\n`);
    await publishAfterChange(command, db, dbFile, location, `the token for ${deckId} is issued`);
  } finally {
    db.close();
  }
}

/** `snapdeck tokens share|private DECK_ID` (decisions.md "Operator interface"). */
export function registerTokensCommand(program: Command): void {
  const tokens = program
    .command('tokens')
    .description('issue tokens that open a private deck: GET /v1/decks/{deckId}?token=TOKEN');

  tokens
    .command('share')
    .description('print a new share token for a deck (valid for --ttl seconds, at most 24 hours)')
    .argument('<deckId>', 'the deck id (UUID v4)', parseDeckId)
    .option('--ttl <seconds>', 'lifetime in seconds, 1 to 86400', parseTtl, MAX_SHARE_TTL_SECONDS)
    .addOption(dbOption('SQLite database file'))
    .option('--publish <location>', publishHelp())
    .addHelpText(
      'after',
      `
Examples:
  $ npx snapdeck tokens share 3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b
  $ TOKEN=$(npx snapdeck tokens share 3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b --ttl 3600)
  $ curl "http://127.0.0.1:8787/v1/decks/3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b?token=$TOKEN"`,
    )
    .action((deckId: string, options: { ttl: number; db: string; publish?: string }, command: Command) =>
      issueToken(command, options.db, deckId, options.publish, (store) => store.createShareToken(deckId, options.ttl)),
    );

  tokens
    .command('private')
    .description('print a new pd_ private link token for a deck (never expires)')
    .argument('<deckId>', 'the deck id (UUID v4)', parseDeckId)
    .addOption(dbOption('SQLite database file'))
    .option('--publish <location>', publishHelp())
    .addHelpText(
      'after',
      `
Examples:
  $ npx snapdeck tokens private 3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b
  $ curl "http://127.0.0.1:8787/v1/decks/3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b?token=pd_..."`,
    )
    .action((deckId: string, options: { db: string; publish?: string }, command: Command) =>
      issueToken(command, options.db, deckId, options.publish, (store) => store.createPrivateLink(deckId)),
    );
}
