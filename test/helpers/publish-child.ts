/**
 * A writer process for fault tests: `tsx test/helpers/publish-child.ts DB LOCATION KILL_AT`
 * publishes the store of DB to LOCATION and SIGKILLs itself right after writing the first object
 * whose key contains KILL_AT (e.g. `versions/` after the manifest, `current.json` after the
 * pointer, `parts/decks/` mid-upload), through FaultyDriver. Exits 0 if it never met that point.
 * A fourth argument sets deltaMinBytes (0: the decks part goes as a delta whatever its size).
 */
import { openStorage } from '@snapdeck/snapshot';
import { openDatabase, publishStore } from '@snapdeck/store';
import { FaultyDriver } from './faulty-driver.ts';

const [dbFile, location, killAt, deltaMinBytes] = process.argv.slice(2);
const db = openDatabase(dbFile!);
await publishStore(db, new FaultyDriver(openStorage(location!), { killAfterKey: killAt! }), { segmentBytes: 64 * 1024, deltaMinBytes: deltaMinBytes === undefined ? undefined : Number(deltaMinBytes) });
