/**
 * A builder process for fault tests: `tsx test/helpers/build-child.ts CATALOG LOCATION KILL_AFTER`
 * builds the catalogs of CATALOG into LOCATION (a folder or s3://…, configured from the
 * environment like the CLI) through the library, and SIGKILLs itself right after its
 * KILL_AFTER-th storage write (FaultyDriver). Exits 0 if it never got that far.
 */
import { build, openStorage } from '@snapdeck/snapshot';
import { FaultyDriver } from './faulty-driver.ts';

const [catalogDir, location, killAfter] = process.argv.slice(2);
const storage = new FaultyDriver(openStorage(location!), { killAfterWrites: Number(killAfter) });
await build({ catalogDir: catalogDir!, storage });
await storage.close();
