import { existsSync, rmSync } from 'node:fs';
import type { Command } from 'commander';
import { DECK_IMPORT_LINE_MAX_BYTES, OperatorError } from '@snapdeck/contract';
import { DeckImportError, importDecksFromFile, openDatabase } from '@snapdeck/store';
import { dbOption, keepDeckChangesDaysOption, pruneDeckFeed } from '../options.ts';
import { outputOf } from '../output.ts';
import { publishAfterChange, preparePublish, publishHelp, publishTimeoutOption } from '../publish.ts';
import { ChangedDecks, MAX_DECK_KEYS, purgeAfterChange, purgeHelp, purgeTargetsOf, purgeUrlOption } from '../purge.ts';
import { purgeWaitOption } from '../purge-wait.ts';

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
    .addOption(publishTimeoutOption())
    .addOption(purgeWaitOption())
    .addOption(keepDeckChangesDaysOption())
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
The file is UTF-8 (invalid bytes are refused); one line may have at most ${DECK_IMPORT_LINE_MAX_BYTES / 1024 / 1024} MiB.

Examples:
  $ npx snapdeck decks import decks.jsonl
  $ npx snapdeck decks import exports/2026-01-07.jsonl --db /var/lib/snapdeck/snapdeck.db
  $ npx snapdeck decks import decks.jsonl --purge http://127.0.0.1:6081/

With --purge, once the import is committed each changed deck's responses are purged from the
cache (Surrogate-Key: deck:<id> ..., or decks when more than ${MAX_DECK_KEYS} changed); a failed purge
exits 1 after the import. With --publish too, the purge waits until every gateway following the
store serves the new decks (at most --purge-wait seconds; past it the purge is sent, the gateways
still behind are named and the command exits 1).`,
    )
    .action(async (file: string, options: { db: string; purge?: string[]; publish?: string; publishTimeout: number; purgeWait: number; keepDeckChangesDays: number }, command: Command) => {
      const io = outputOf(command);
      const purge = purgeTargetsOf(options.purge);
      const publish = preparePublish(options.publish, options.publishTimeout);
      let published: { location: string; version: string } | null = null;
      const changed = new ChangedDecks();
      // A database this command created is removed again when nothing was imported into it:
      // a refused file changes nothing, not even by leaving an empty database behind.
      const created = !existsSync(options.db);
      let imported = false;
      const db = openDatabase(options.db);
      try {
        const result = await importDecksFromFile(db, file, purge.length > 0 ? { onChange: (id) => changed.add(id) } : {});
        const notFound = result.notFound > 0 ? ` (${result.notFound} not found)` : '';
        imported = true;
        io.out(`${file}: ${result.upserted} decks upserted, ${result.deleted} deleted${notFound} in ${(result.elapsedMs / 1000).toFixed(2)} s\n`);
        pruneDeckFeed(db, options.keepDeckChangesDays, io.err);
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
        if (created && !imported) for (const suffix of ['', '-wal', '-shm']) rmSync(`${options.db}${suffix}`, { force: true });
      }
      // Gateways following the store serve the new decks once their download is done: wait for them.
      const when = published ? { published: { ...published, waitSeconds: options.purgeWait } } : { settleMs: 0 };
      await purgeAfterChange(command, purge, changed.surrogateKeys, `${file} was imported`, when);
    });
}
