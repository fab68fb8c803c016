import { mkdir, readdir, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, PreconditionFailedError, build, collectGarbage, layout } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { tempDir } from './helpers/harness.ts';
import { currentVersionOf, readCurrentFully, runCli } from './helpers/snapshot-read.ts';

/**
 * What a writer killed with SIGKILL leaves in a local snapshot folder: the compare-and-swap lock
 * `<key>.lock` (killed while replacing current.json) and `<key>.tmp-*` files (killed between
 * writing and renaming). Neither may block later builds or pile up forever.
 */
const GAME = 'gundam';
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-debris-'));
});

afterAll(async () => {
  await cleanup?.();
});

/** Sets a file's modification time `ms` in the past. */
async function age(file: string, ms: number): Promise<void> {
  const then = new Date(Date.now() - ms);
  await utimes(file, then, then);
}

/** Every file under a folder (relative paths), including the ones `list` hides. */
async function allFiles(root: string, sub = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, sub), { withFileTypes: true })) {
    const rel = sub ? `${sub}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await allFiles(root, rel)));
    else out.push(rel);
  }
  return out;
}

/** A driver over dir/<name> holding g/current.json ('one'), and the path of that object's lock file. */
async function pointerWithLock(name: string) {
  const root = join(dir, name);
  const driver = new FsDriver(root);
  const first = await driver.put('g/current.json', Buffer.from('one'));
  return { root, driver, first, lock: join(root, 'g', 'current.json.lock') };
}

describe('a lock file left by a killed writer', () => {
  it('is respected while young and broken once stale (30 s), by the driver and by a later build', async () => {
    const { root, driver, first, lock } = await pointerWithLock('locks');

    // A writer holding the lock right now: the swap is refused, as before.
    await writeFile(lock, '');
    await expect(driver.put('g/current.json', Buffer.from('two'), { ifMatch: first.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(Buffer.from((await driver.get('g/current.json'))!.body).toString()).toBe('one');

    // The same lock 31 s later: its writer is dead. It is broken and the swap happens.
    await age(lock, 31_000);
    const second = await driver.put('g/current.json', Buffer.from('two'), { ifMatch: first.etag });
    expect(Buffer.from((await driver.get('g/current.json'))!.body).toString()).toBe('two');
    expect(await allFiles(root)).toEqual(['g/current.json']);
    // The precondition still holds after breaking a lock: a wrong etag is refused.
    await writeFile(lock, '');
    await age(lock, 60_000);
    await expect(driver.put('g/current.json', Buffer.from('three'), { ifMatch: first.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(Buffer.from((await driver.get('g/current.json'))!.body).toString()).toBe('two');

    // Many writers finding the same stale lock at once: exactly one of them swaps.
    await writeFile(lock, '');
    await age(lock, 60_000);
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => new FsDriver(root).put('g/current.json', Buffer.from(`writer ${i}`), { ifMatch: second.etag })),
    );
    const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(PreconditionFailedError);
    expect(Buffer.from((await driver.get('g/current.json'))!.body).toString()).toBe(`writer ${winners[0]}`);
    expect(await allFiles(root)).toEqual(['g/current.json']);

    // A writer killed while breaking a stale lock left its breaker file: the next one goes past it.
    const third = (await driver.head('g/current.json'))!;
    await writeFile(lock, '');
    await age(lock, 60_000);
    const info = await stat(lock);
    const breaker = `${lock}.break-${info.ino}-${Math.floor(info.mtimeMs)}-0.lock`;
    await writeFile(breaker, '');
    await age(breaker, 60_000);
    await driver.put('g/current.json', Buffer.from('four'), { ifMatch: third.etag });
    expect(Buffer.from((await driver.get('g/current.json'))!.body).toString()).toBe('four');
    expect((await allFiles(root)).sort()).toEqual([`g/current.json`, `g/${breaker.split('/').pop()}`]);
    expect(await driver.list('')).toEqual(['g/current.json']);
  });

  it('a lock its writer releases within moments is waited for: the swap is then compared with what that writer left', async () => {
    const { root, driver, first, lock } = await pointerWithLock('live-lock');

    // Held 50 ms by a writer that then lets go without changing the object: the swap goes through.
    await writeFile(lock, '');
    const released = delay(50).then(() => unlink(lock));
    const second = await driver.put('g/current.json', Buffer.from('two'), { ifMatch: first.etag });
    await released;
    expect(Buffer.from((await driver.get('g/current.json'))!.body).toString()).toBe('two');

    // Held 50 ms by a writer that replaces the object meanwhile: refused, the other writer's stays.
    await writeFile(lock, '');
    const replaced = delay(50).then(async () => {
      await writeFile(join(root, 'g', 'current.json'), 'other');
      await unlink(lock);
    });
    await expect(driver.put('g/current.json', Buffer.from('three'), { ifMatch: second.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
    await replaced;
    expect(Buffer.from((await driver.get('g/current.json'))!.body).toString()).toBe('other');
    expect(await allFiles(root)).toEqual(['g/current.json']);
  });

  it('does not block `snapdeck build` forever: a build after a killed one publishes', async () => {
    const out = join(dir, 'build-lock');
    const catalogA = join(dir, 'catalog-a');
    const catalogB = join(dir, 'catalog-b');
    await writeGeneratedCatalog(catalogA, { [GAME]: 40 }, 1);
    const cardsB = await writeGeneratedCatalog(catalogB, { [GAME]: 50 }, 2);
    const built = await runCli(['build', '--catalog', catalogA, '--out', out, '--hits-per-page', '10']);
    expect(built.status, built.stderr).toBe(0);
    const before = await currentVersionOf(new FsDriver(out), GAME);

    // A build killed while it held the pointer's lock.
    const lock = join(out, GAME, 'current.json.lock');
    await writeFile(lock, '');
    const blocked = await runCli(['build', '--catalog', catalogB, '--out', out, '--hits-per-page', '10']);
    expect(blocked.status).not.toBe(0);
    expect(await currentVersionOf(new FsDriver(out), GAME)).toBe(before);

    await age(lock, 5 * 60_000);
    const again = await runCli(['build', '--catalog', catalogB, '--out', out, '--hits-per-page', '10']);
    expect(again.status, again.stderr).toBe(0);
    const driver = new FsDriver(out);
    expect(await currentVersionOf(driver, GAME)).not.toBe(before);
    expect((await readCurrentFully(driver, GAME, 10)).ids).toEqual(cardsB[GAME]!.map((card) => card.id).sort());
    await expect(stat(lock)).rejects.toThrow();
  });
});

describe('snapdeck gc and temporary files', () => {
  it('removes temporary files untouched for over an hour, anywhere under the location; keeps younger ones and locks', async () => {
    const out = join(dir, 'gc-temp');
    const catalog = join(dir, 'catalog-gc');
    await writeGeneratedCatalog(catalog, { [GAME]: 30 }, 3);
    const driver = new FsDriver(out);
    const [result] = await build({ catalogDir: catalog, storage: driver, hitsPerPage: [10] });
    const version = result!.version;
    const keys = (await driver.list('')).sort();

    // What SIGKILLed writers leave behind (the names FsDriver.put uses). A lock is left to the
    // writers (they break stale ones), so gc does not touch it.
    const versionDir = join(out, GAME, 'versions', version);
    const debris = {
      oldSegment: join(versionDir, `cards.br.0.tmp-4242-a1b2c3d4e5f6`),
      oldPointer: join(out, GAME, `current.json.tmp-4242-0123456789ab`),
      oldLock: join(out, GAME, 'current.json.lock'),
      oldClaim: join(out, '_snapdeck', 'builds', GAME, `${'f'.repeat(64)}.json.tmp-99-abcdefabcdef`),
      youngSegment: join(versionDir, `hits.identity.0.tmp-4343-ffffffffffff`),
    };
    await mkdir(join(out, '_snapdeck', 'builds', GAME), { recursive: true });
    for (const file of Object.values(debris)) await writeFile(file, Buffer.alloc(1000, 1));
    for (const file of [debris.oldSegment, debris.oldPointer, debris.oldLock, debris.oldClaim]) await age(file, 2 * 3600_000);
    await age(debris.youngSegment, 10 * 60_000);
    // Listings never showed them.
    expect((await driver.list('')).sort()).toEqual(keys);

    // A dry run counts them and removes nothing.
    const dry = await collectGarbage({ storage: driver, dryRun: true });
    expect(dry).toMatchObject({ deletedTemporaries: 3, deletedTemporaryBytes: 3000, deletedVersions: 0 });
    for (const file of Object.values(debris)) await stat(file);

    const gc = await runCli(['gc', '--out', out]);
    expect(gc.status, gc.stderr).toBe(0);
    expect(gc.stdout).toContain('removed 3 temporary file(s) left by interrupted writes');
    for (const file of [debris.oldSegment, debris.oldPointer, debris.oldClaim]) await expect(stat(file)).rejects.toThrow();
    await stat(debris.youngSegment);
    await stat(debris.oldLock);
    // The snapshot itself is untouched and still serves.
    expect((await driver.list('')).sort()).toEqual(keys);
    expect((await readCurrentFully(driver, GAME, 10)).version).toBe(version);
    expect(await driver.head(layout.manifest(GAME, version))).not.toBeNull();

    const nothing = await collectGarbage({ storage: driver });
    expect(nothing.deletedTemporaries).toBe(0);
  });
});
