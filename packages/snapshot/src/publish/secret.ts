import { randomBytes } from 'node:crypto';
import { LOCATION_SECRET_KEY } from '../layout.ts';
import { PreconditionFailedError, type StorageDriver } from '../storage/driver.ts';

/** The location's secret, created (create-only) by the first build that needs it. */
export async function ensureLocationSecret(driver: StorageDriver): Promise<Buffer> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await driver.get(LOCATION_SECRET_KEY);
    if (existing) {
      if (existing.body.length < 32) throw new Error(`${driver.location}/${LOCATION_SECRET_KEY} is damaged (fewer than 32 bytes)`);
      return Buffer.from(existing.body);
    }
    try {
      await driver.put(LOCATION_SECRET_KEY, randomBytes(32), { ifNoneMatch: '*' });
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
      // Someone else created it first: read theirs.
    }
  }
  throw new Error(`${driver.location}/${LOCATION_SECRET_KEY} cannot be created or read`);
}
