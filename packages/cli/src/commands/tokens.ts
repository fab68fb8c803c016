import { InvalidArgumentError, Option, type Command } from 'commander';
import { OPERATOR_DEFAULTS, OperatorError } from '@snapdeck/contract';
import { DeckStore, MAX_SHARE_TTL_SECONDS, normalizeDeckId, openDatabase } from '@snapdeck/store';
import { printSecret } from '../output.ts';
import { dbOption } from '../options.ts';
import { publishAfterChange, preparePublish, publishHelp, publishTimeoutOption } from '../publish.ts';

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

/** Options every token command has; `ttl` only on `tokens share`. */
interface TokenOptions {
  db: string;
  publish?: string;
  publishTimeout: number;
  ttl?: number;
}

const EXAMPLE_DECK_ID = '3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b';
const LOCAL_API = `http://${OPERATOR_DEFAULTS.host}:${OPERATOR_DEFAULTS.port}/v1`;

/**
 * One `tokens <name> DECK_ID` command: runs `issue` against the deck store and prints the token
 * alone on stdout (so scripts can capture it: TOKEN=$(npx snapdeck tokens share ...)); a deck
 * that does not exist is an error. `options` come before the shared --db and --publish.
 */
function tokenCommand(
  tokens: Command,
  spec: { name: string; description: string; options?: Option[]; examples: string[]; issue: (store: DeckStore, deckId: string, options: TokenOptions) => string | null },
): Command {
  const command = tokens.command(spec.name).description(spec.description).argument('<deckId>', 'the deck id (UUID v4)', parseDeckId);
  for (const option of spec.options ?? []) command.addOption(option);
  return command
    .addOption(dbOption('SQLite database file'))
    .option('--publish <location>', publishHelp())
    .addOption(publishTimeoutOption())
    .addHelpText('after', `\nExamples:\n${spec.examples.map((example) => `  $ ${example}`).join('\n')}`)
    .action(async (deckId: string, options: TokenOptions, self: Command) => {
      const location = preparePublish(options.publish, options.publishTimeout);
      const db = openDatabase(options.db);
      try {
        const token = spec.issue(new DeckStore(db), deckId, options);
        if (token === null) throw new OperatorError(`no deck with id ${deckId} in ${options.db}`);
        printSecret(self, token);
        await publishAfterChange(self, db, options.db, location, `the token for ${deckId} is issued`);
      } finally {
        db.close();
      }
    });
}

/** `snapdeck tokens share|private DECK_ID` (decisions.md "Operator interface"). */
export function registerTokensCommand(program: Command): void {
  const tokens = program
    .command('tokens')
    .description('issue tokens that open a private deck: GET /v1/decks/{deckId}?token=TOKEN');

  tokenCommand(tokens, {
    name: 'share',
    description: 'print a new share token for a deck (valid for --ttl seconds, at most 24 hours)',
    options: [new Option('--ttl <seconds>', `lifetime in seconds, 1 to ${MAX_SHARE_TTL_SECONDS}`).argParser(parseTtl).default(MAX_SHARE_TTL_SECONDS)],
    examples: [
      `npx snapdeck tokens share ${EXAMPLE_DECK_ID}`,
      `TOKEN=$(npx snapdeck tokens share ${EXAMPLE_DECK_ID} --ttl 3600)`,
      `curl "${LOCAL_API}/decks/${EXAMPLE_DECK_ID}?token=$TOKEN"`,
    ],
    issue: (store, deckId, options) => store.createShareToken(deckId, options.ttl!),
  });

  tokenCommand(tokens, {
    name: 'private',
    description: 'print a new pd_ private link token for a deck (never expires)',
    examples: [`npx snapdeck tokens private ${EXAMPLE_DECK_ID}`, `curl "${LOCAL_API}/decks/${EXAMPLE_DECK_ID}?token=pd_..."`],
    issue: (store, deckId) => store.createPrivateLink(deckId),
  });
}
