import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimKey, versionIdAfter, versionTime } from '../layout.ts';
import { FsDriver } from '../storage/fs.ts';
import { claimVersion, claimedVersion } from './claim.ts';

const HASH = 'ab12cd'.padEnd(64, '0');
let dir: string;
let driver: FsDriver;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snapdeck-claim-'));
  driver = new FsDriver(dir);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('claimVersion', () => {
  it('claims a new id named after the build hash, then gives the same one back (resume)', async () => {
    const first = await claimVersion(driver, 'gundam', HASH, null);
    expect(first.resumed).toBe(false);
    expect(first.version).toMatch(/-ab12cd$/);
    expect(await claimVersion(driver, 'gundam', HASH, null)).toEqual({ version: first.version, resumed: true });
  });

  it('claims again when the claimed id is older than the current version, or the claim is damaged', async () => {
    const first = await claimVersion(driver, 'gundam', HASH, null);
    const future = '2999-01-01T00-00-00-000Z-abcdef';
    const again = await claimVersion(driver, 'gundam', HASH, { version: future });
    expect(again.resumed).toBe(false);
    expect(again.version > future).toBe(true);
    await driver.put(claimKey('gundam', HASH), Buffer.from('{not json'));
    const repaired = await claimVersion(driver, 'gundam', HASH, null);
    expect(repaired.resumed).toBe(false);
    expect(repaired.version).not.toBe(first.version);
  });
});

describe('claim and version id helpers', () => {
  it('claimedVersion reads a claim, or null for anything else', () => {
    const version = '2026-11-22T11-05-12-345Z-1a2b3c';
    expect(claimedVersion(Buffer.from(JSON.stringify({ version, build: HASH })))).toBe(version);
    expect(claimedVersion(Buffer.from(JSON.stringify({ version: 'v1' })))).toBeNull();
    expect(claimedVersion(Buffer.from('[]'))).toBeNull();
    expect(claimedVersion(Buffer.from('{'))).toBeNull();
  });

  it('versionIdAfter never goes back before the version it follows', () => {
    const future = '2999-01-01T00-00-00-000Z-abcdef';
    const next = versionIdAfter(future, '123456');
    expect(next).toBe('2999-01-01T00-00-00-001Z-123456');
    expect(versionTime(next)!.getTime() - versionTime(future)!.getTime()).toBe(1);
    expect(Math.abs(versionTime(versionIdAfter(null))!.getTime() - Date.now())).toBeLessThan(5000);
  });
});
