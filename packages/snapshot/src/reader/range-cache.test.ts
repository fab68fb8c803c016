import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsDriver } from '../storage/fs.ts';
import type { StorageDriver } from '../storage/driver.ts';
import { RangeCache } from './range-cache.ts';

let dir: string;
let reads: number;
let driver: StorageDriver;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'snapdeck-ranges-'));
  const fs = new FsDriver(dir);
  await fs.put('f', Buffer.from('0123456789'));
  reads = 0;
  driver = Object.assign(Object.create(fs) as StorageDriver, {
    getRange: (key: string, offset: number, length: number) => (reads++, fs.getRange(key, offset, length)),
  });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('RangeCache', () => {
  it('reads a range once for concurrent callers, then answers it synchronously from memory', async () => {
    const ranges = new RangeCache(driver, 1024);
    const [a, b] = await Promise.all([ranges.read('f', 2, 3), ranges.read('f', 2, 3)]);
    expect(Buffer.from(a).toString()).toBe('234');
    expect(b).toBe(a);
    expect(reads).toBe(1);
    const again = ranges.read('f', 2, 3);
    expect(again).not.toBeInstanceOf(Promise);
    expect(ranges.stats).toEqual({ hits: 1, misses: 1 });
  });

  it('keeps no more bytes than it was given, and does not remember failures', async () => {
    const ranges = new RangeCache(driver, 200);
    await ranges.read('f', 0, 10);
    await ranges.read('f', 0, 9);
    expect(ranges.cache.calculatedSize).toBeLessThanOrEqual(200);
    await expect(ranges.read('missing', 0, 1)).rejects.toThrow();
    await expect(ranges.read('missing', 0, 1)).rejects.toThrow();
    expect(reads).toBe(4);
  });
});
