import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PreconditionFailedError } from './driver.ts';
import { FsDriver } from './fs.ts';

let dir: string;
let driver: FsDriver;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snapdeck-fs-'));
  driver = new FsDriver(dir);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('FsDriver', () => {
  it('puts, gets, ranges, lists and deletes', async () => {
    await driver.put('a/b/c.bin', Buffer.from('hello world'));
    await driver.put('a/d.bin', Buffer.from('x'));
    expect(Buffer.from((await driver.get('a/b/c.bin'))!.body).toString()).toBe('hello world');
    expect(Buffer.from(await driver.getRange('a/b/c.bin', 6, 5)).toString()).toBe('world');
    await expect(driver.getRange('a/b/c.bin', 6, 50)).rejects.toThrow();
    expect((await driver.list('a/')).sort()).toEqual(['a/b/c.bin', 'a/d.bin']);
    expect(await driver.list('nothing/')).toEqual([]);
    await driver.delete('a/d.bin');
    await driver.delete('a/d.bin');
    expect(await driver.get('a/d.bin')).toBeNull();
  });

  it('create-only and compare-and-swap writes fail when someone else got there first', async () => {
    await driver.put('p.json', Buffer.from('1'), { ifNoneMatch: '*' });
    await expect(driver.put('p.json', Buffer.from('2'), { ifNoneMatch: '*' })).rejects.toBeInstanceOf(PreconditionFailedError);
    const current = (await driver.head('p.json'))!;
    await driver.put('p.json', Buffer.from('3'), { ifMatch: current.etag });
    await expect(driver.put('p.json', Buffer.from('4'), { ifMatch: current.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
    expect(Buffer.from((await driver.get('p.json'))!.body).toString()).toBe('3');
  });

  it('refuses keys that escape its folder', async () => {
    await expect(driver.put('../x', Buffer.from('1'))).rejects.toThrow(/invalid storage key/);
    await expect(driver.get('/etc/passwd')).rejects.toThrow(/invalid storage key/);
  });
});
