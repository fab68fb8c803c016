/**
 * A writer process for fault tests: `tsx test/helpers/import-child.ts DB COUNT TAG` imports COUNT
 * generated decks (names start with TAG) into DB and SIGKILLs itself right after the commit, before
 * anything else (no publish, no close: its WAL frames stay as they are).
 */
import { importDecks, openDatabase } from '@snapdeck/store';
import { deck, line } from './deck-db.ts';

const [dbFile, count, tag] = process.argv.slice(2);
const db = openDatabase(dbFile!);
await importDecks(db, Array.from({ length: Number(count) }, (_, i) => line(deck({ name: `${tag} ${i}` }))));
process.kill(process.pid, 'SIGKILL');
