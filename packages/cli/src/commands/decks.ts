import { CommanderError, type Command } from 'commander';
import { DeckImportError, importDecksFromFile, openDatabase } from '@snapdeck/store';

export const DEFAULT_DB = 'data/snapdeck.db';

/**
 * Prints a failure (not a usage error, so without the program's "run with --help" hint) and ends
 * the command with exit code 1. Thrown as a CommanderError, which the CLI's entry point and
 * commander's exitOverride treat as "already reported".
 */
export function fail(command: Command, message: string, code: string): never {
  outputOf(command).err(`${message}\n`);
  throw new CommanderError(1, code, message);
}

/** Where a command writes: its commander output configuration (tests capture it), else the process streams. */
export function outputOf(command: Command): { out(text: string): void; err(text: string): void } {
  const config = command.configureOutput();
  return {
    out: (text) => (config.writeOut ? config.writeOut(text) : process.stdout.write(text)),
    err: (text) => (config.writeErr ? config.writeErr(text) : process.stderr.write(text)),
  };
}

/** `snapdeck decks import FILE [--db FILE]` (decisions.md "Operator interface"). */
export function registerDecksCommand(program: Command): void {
  const decks = program.command('decks').description('manage the deck database');

  decks
    .command('import')
    .description(
      'upsert decks from a JSON Lines file, all or nothing: one bad line rejects the whole file\n' +
        '(its line number and the reason are printed) and the database is left unchanged',
    )
    .argument('<file>', 'JSON Lines file, one deck per line')
    .option('--db <file>', 'SQLite database file', DEFAULT_DB)
    .addHelpText(
      'after',
      `
Each line is one deck:
  {"id": "<uuid v4>", "gameId": "digimon", "name": "Red Hybrid", "ownerDisplayName": "kaito",
   "visibility": "public", "createdAt": "2026-01-05T10:00:00.000Z", "updatedAt": "2026-01-06T08:30:00Z",
   "copyCount": 0, "viewCount": 0, "likeCount": 0,
   "cards": [{"cardId": "BT1-001", "quantity": 4, "zoneId": "digi-egg"}, {"cardId": "BT1-010", "quantity": 4}]}
or a deletion:
  {"id": "<uuid v4>", "deleted": true}
gameId is one of digimon, gundam, grand-archive, chrono-core; visibility public or private; the
counters default to 0; zoneId is optional. Timestamps are ISO 8601 with a zone (Z or +hh:mm).

Examples:
  $ npx snapdeck decks import decks.jsonl
  $ npx snapdeck decks import exports/2026-01-07.jsonl --db /var/lib/snapdeck/snapdeck.db`,
    )
    .action(async (file: string, options: { db: string }, command: Command) => {
      const io = outputOf(command);
      const db = openDatabase(options.db);
      try {
        const result = await importDecksFromFile(db, file);
        const notFound = result.notFound > 0 ? ` (${result.notFound} not found)` : '';
        io.out(`${file}: ${result.upserted} decks upserted, ${result.deleted} deleted${notFound} in ${(result.elapsedMs / 1000).toFixed(2)} s\n`);
      } catch (error) {
        if (error instanceof DeckImportError) fail(command, `${file}:${error.line}: ${error.reason}`, 'snapdeck.import');
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
          fail(command, `${file}: cannot read the file (${code}); nothing was imported`, 'snapdeck.import');
        }
        throw error;
      } finally {
        db.close();
      }
    });
}
