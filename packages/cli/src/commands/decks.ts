import type { Command } from 'commander';
import { OperatorError } from '@snapdeck/contract';
import { DeckImportError, importDecksFromFile, openDatabase } from '@snapdeck/store';
import { dbOption } from '../options.ts';
import { outputOf } from '../output.ts';
import { STORE_PROPAGATION_MS, publishAfterChange, preparePublish, publishHelp } from '../publish.ts';
import { ChangedDecks, MAX_DECK_KEYS, PURGE_URL_ENV, PurgeError, manualPurge, purgeSurrogateKeys, purgeTargets, purgeUrlOption } from '../purge.ts';

/** The `--purge URL` option's help (keys revoke, decks import). */
export function purgeHelp(what: string): string {
  return `after the change, send PURGE to this cache URL with Surrogate-Key naming ${what} (repeatable; default: $${PURGE_URL_ENV}, URLs separated by spaces or commas)`;
}

/** The caches to purge (options, else the environment), checked before anything changes. */
export function purgeTargetsOf(command: Command, options: string[] | undefined): string[] {
  try {
    return purgeTargets(options);
  } catch (error) {
    throw new OperatorError(`${(error as Error).message}; nothing was changed`);
  }
}

/**
 * After a committed change: waits `settleMs` (until every gateway answers from the new state, so
 * that no request can put the old answer back into the cache), then purges `keys` at `urls`. A
 * failed purge ends the command with exit 1, saying the change itself was made.
 */
export async function purgeAfterChange(command: Command, urls: readonly string[], keys: readonly string[], change: string, settleMs = 0): Promise<void> {
  if (urls.length === 0 || keys.length === 0) return;
  if (settleMs > 0) await new Promise((resolve) => setTimeout(resolve, settleMs));
  try {
    const requests = await purgeSurrogateKeys(urls, keys);
    const named = keys.length === 1 ? keys[0] : `${keys.length} surrogate keys`;
    outputOf(command).err(`purged ${named} from ${urls.join(', ')} (${requests} request${requests === 1 ? '' : 's'} each)\n`);
  } catch (error) {
    if (!(error instanceof PurgeError)) throw error;
    throw new OperatorError(
      `${change}, but purging the cache failed: ${error.message}\n` +
        `The cache may keep serving what changed until it expires. Purge it by hand:\n  ${manualPurge(urls, keys)}`,
    );
  }
}

/** `snapdeck decks import FILE [--db FILE] [--purge URL]` (decisions.md "Operator interface"). */
export function registerDecksCommand(program: Command): void {
  const decks = program.command('decks').description('manage the deck database');

  decks
    .command('import')
    .description(
      'upsert decks from a JSON Lines file, all or nothing: one bad line rejects the whole file\n' +
        '(its line number and the reason are printed) and the database is left unchanged',
    )
    .argument('<file>', 'JSON Lines file, one deck per line')
    .addOption(dbOption('SQLite database file (created when missing)', 'create'))
    .option('--purge <url>', purgeHelp('every deck the import changed'), purgeUrlOption)
    .option('--publish <location>', publishHelp())
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
  $ npx snapdeck decks import exports/2026-01-07.jsonl --db /var/lib/snapdeck/snapdeck.db
  $ npx snapdeck decks import decks.jsonl --purge http://127.0.0.1:6081/

With --purge, once the import is committed each changed deck's responses are purged from the
cache (Surrogate-Key: deck:<id> ..., or decks when more than ${MAX_DECK_KEYS} changed); a failed purge
exits 1 after the import.`,
    )
    .action(async (file: string, options: { db: string; purge?: string[]; publish?: string }, command: Command) => {
      const io = outputOf(command);
      const purge = purgeTargetsOf(command, options.purge);
      const publish = preparePublish(options.publish);
      let published = false;
      const changed = new ChangedDecks();
      const db = openDatabase(options.db);
      try {
        const result = await importDecksFromFile(db, file, purge.length > 0 ? { onChange: (id) => changed.add(id) } : {});
        const notFound = result.notFound > 0 ? ` (${result.notFound} not found)` : '';
        io.out(`${file}: ${result.upserted} decks upserted, ${result.deleted} deleted${notFound} in ${(result.elapsedMs / 1000).toFixed(2)} s\n`);
        published = await publishAfterChange(command, db, options.db, publish, `${file} was imported`);
      } catch (error) {
        if (error instanceof DeckImportError) throw new OperatorError(`${file}:${error.line}: ${error.reason}`);
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') {
          throw new OperatorError(`${file}: cannot read the file (${code}); nothing was imported`);
        }
        throw error;
      } finally {
        db.close();
      }
      // Following gateways serve the new decks a download plus the propagation bound after the publish.
      await purgeAfterChange(command, purge, changed.surrogateKeys, `${file} was imported`, published ? STORE_PROPAGATION_MS : 0);
    });
}
