/**
 * A writer process for fault tests: `tsx test/helpers/publish-child.ts DB LOCATION KILL_AT`
 * publishes the store of DB to LOCATION and SIGKILLs itself right after writing the first object
 * whose key contains KILL_AT (e.g. `versions/` after the manifest, `current.json` after the
 * pointer, `parts/decks/` mid-upload). Exits 0 if it never met that point.
 */
import { openStorage } from '@snapdeck/snapshot';
import { openDatabase, publishStore } from '@snapdeck/store';

const [dbFile, location, killAt] = process.argv.slice(2);
const db = openDatabase(dbFile!);
await publishStore(db, openStorage(location!), {
  segmentBytes: 64 * 1024,
  afterWrite: (key) => {
    if (key.includes(killAt!)) process.kill(process.pid, 'SIGKILL');
  },
});
