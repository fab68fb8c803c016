import { VERSION_PATTERN, claimKey, versionIdAfter } from '../layout.ts';
import { PreconditionFailedError, type StorageDriver } from '../storage/driver.ts';

export interface Claim {
  version: string;
  /** The version id was claimed by an earlier run of the same input, and reused. */
  resumed: boolean;
}

/**
 * The version id for this build hash: the one an earlier run claimed (resume), or a new one,
 * claimed now. A claimed version older than the current one (`base`) is replaced by a new id.
 */
export async function claimVersion(driver: StorageDriver, game: string, hash: string, base: { version: string } | null): Promise<Claim> {
  const key = claimKey(game, hash);
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await driver.get(key);
    if (existing) {
      const claimed = claimedVersion(existing.body);
      if (claimed !== null && (base === null || claimed >= base.version)) return { version: claimed, resumed: true };
    }
    const version = versionIdAfter(base?.version ?? null, hash.slice(0, 6));
    const body = Buffer.from(JSON.stringify({ version, build: hash, claimedAt: new Date().toISOString() }));
    try {
      await driver.put(key, body, existing ? { ifMatch: existing.etag, contentType: 'application/json' } : { ifNoneMatch: '*', contentType: 'application/json' });
      return { version, resumed: false };
    } catch (error) {
      if (!(error instanceof PreconditionFailedError)) throw error;
      // A concurrent run of the same input claimed first: loop and use its version.
    }
  }
  throw new Error(`${driver.location}/${key}: could not claim a version id (it keeps changing)`);
}

/** The version a claim object names, or null when it is damaged (it is then replaced). */
export function claimedVersion(body: Uint8Array): string | null {
  try {
    const value = JSON.parse(Buffer.from(body).toString('utf8')) as { version?: unknown };
    return typeof value.version === 'string' && VERSION_PATTERN.test(value.version) ? value.version : null;
  } catch {
    return null;
  }
}
