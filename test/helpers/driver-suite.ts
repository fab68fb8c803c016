import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PreconditionFailedError, type StorageDriver } from '@snapdeck/snapshot';

/**
 * The shared driver test suite, the unjs/unstorage way: every StorageDriver runs the same tests
 * (`testDriver(name, make)` in test/storage-drivers.test.ts: a local folder, S3 on moto, and the
 * FaultyDriver wrapper of the fault tests). What the builder and the gateway rely on must hold
 * for each alike.
 */
export interface DriverSubject {
  driver: StorageDriver;
  cleanup(): Promise<void>;
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

export function testDriver(name: string, make: () => Promise<DriverSubject>): void {
  describe(name, () => {
    let subject: DriverSubject;
    let driver: StorageDriver;
    beforeEach(async () => {
      subject = await make();
      driver = subject.driver;
    });
    afterEach(() => subject.cleanup());

    it('puts, gets, ranges, lists and deletes', async () => {
      await driver.put('a/b/c.bin', Buffer.from('hello world'));
      await driver.put('a/d.bin', Buffer.from('x'));
      expect(text((await driver.get('a/b/c.bin'))!.body)).toBe('hello world');
      expect(text(await driver.getRange('a/b/c.bin', 6, 5))).toBe('world');
      expect(text(await driver.getRange('a/b/c.bin', 0, 1))).toBe('h');
      await expect(driver.getRange('a/b/c.bin', 6, 50)).rejects.toThrow();
      await expect(driver.getRange('a/missing.bin', 0, 1)).rejects.toThrow();
      expect((await driver.list('a/')).sort()).toEqual(['a/b/c.bin', 'a/d.bin']);
      expect((await driver.list('a/b/')).sort()).toEqual(['a/b/c.bin']);
      expect((await driver.list('')).sort()).toEqual(['a/b/c.bin', 'a/d.bin']);
      expect(await driver.list('nothing/')).toEqual([]);
      await driver.delete('a/d.bin');
      await driver.delete('a/d.bin');
      expect(await driver.get('a/d.bin')).toBeNull();
      expect(await driver.head('a/d.bin')).toBeNull();
    });

    it('reports size and an entity tag that follows the content', async () => {
      const first = await driver.put('e.bin', Buffer.from('one'));
      const head = (await driver.head('e.bin'))!;
      expect(head.size).toBe(3);
      expect(head.etag).toBe(first.etag);
      expect((await driver.get('e.bin'))!.etag).toBe(head.etag);
      await driver.put('e.bin', Buffer.from('two'));
      expect((await driver.head('e.bin'))!.etag).not.toBe(head.etag);
      // A checksum, when a driver reports one, is the content's.
      const sha = (await driver.head('e.bin'))!.sha256;
      if (sha !== undefined) expect(sha).toBe(createHash('sha256').update('two').digest('hex'));
      await driver.put('empty.bin', new Uint8Array(0));
      expect((await driver.get('empty.bin'))!.body.length).toBe(0);
      expect((await driver.head('empty.bin'))!.size).toBe(0);
    });

    it('lists many keys (across listing pages)', async () => {
      const keys = Array.from({ length: 23 }, (_, i) => `many/${String(i).padStart(2, '0')}.bin`);
      await Promise.all(keys.map((key) => driver.put(key, Buffer.from(key))));
      await driver.put('other/x.bin', Buffer.from('x'));
      expect((await driver.list('many/')).sort()).toEqual(keys);
      if (driver.listSizes) {
        const sizes = await driver.listSizes('many/');
        expect([...sizes.keys()].sort()).toEqual(keys);
        expect(sizes.get(keys[0]!)).toBe(keys[0]!.length);
      }
    });

    it('create-only and compare-and-swap writes fail when someone else got there first', async () => {
      await driver.put('p.json', Buffer.from('1'), { ifNoneMatch: '*' });
      await expect(driver.put('p.json', Buffer.from('2'), { ifNoneMatch: '*' })).rejects.toBeInstanceOf(PreconditionFailedError);
      const current = (await driver.head('p.json'))!;
      await driver.put('p.json', Buffer.from('3'), { ifMatch: current.etag });
      await expect(driver.put('p.json', Buffer.from('4'), { ifMatch: current.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
      expect(text((await driver.get('p.json'))!.body)).toBe('3');
      // If-Match on an object that is not there: the expected version is not there either.
      await expect(driver.put('absent.json', Buffer.from('5'), { ifMatch: current.etag })).rejects.toBeInstanceOf(PreconditionFailedError);
      expect(await driver.get('absent.json')).toBeNull();
    });

    it('two concurrent create-only writes: exactly one wins', async () => {
      for (let round = 0; round < 5; round++) {
        const key = `race/create-${round}.json`;
        const results = await Promise.allSettled([
          driver.put(key, Buffer.from(`a${round}`), { ifNoneMatch: '*' }),
          driver.put(key, Buffer.from(`b${round}`), { ifNoneMatch: '*' }),
        ]);
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]!.reason).toBeInstanceOf(PreconditionFailedError);
        const winner = results[0]!.status === 'fulfilled' ? `a${round}` : `b${round}`;
        expect(text((await driver.get(key))!.body)).toBe(winner);
      }
    });

    it('concurrent compare-and-swap writes from the same etag: at most one wins, and the winner is what is stored', async () => {
      const key = 'race/cas.json';
      const base = await driver.put(key, Buffer.from('base'));
      let previous = 'base';
      for (let round = 0; round < 5; round++) {
        const etag = (await driver.head(key))!.etag;
        const results = await Promise.allSettled(
          ['x', 'y', 'z'].map((who) => driver.put(key, Buffer.from(`${who}${round}`), { ifMatch: etag })),
        );
        const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [['x', 'y', 'z'][i]!] : []));
        for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(PreconditionFailedError);
        expect(won.length).toBeLessThanOrEqual(1);
        const stored = text((await driver.get(key))!.body);
        expect(stored).toBe(won.length === 1 ? `${won[0]}${round}` : previous);
        previous = stored;
      }
      expect(base.etag).not.toBe((await driver.head(key))!.etag);
    });

    it('refuses keys that escape its root', async () => {
      await expect(driver.put('../x', Buffer.from('1'))).rejects.toThrow(/invalid storage key/);
      await expect(driver.get('/etc/passwd')).rejects.toThrow(/invalid storage key/);
      await expect(driver.head('a//b')).rejects.toThrow(/invalid storage key/);
    });
  });
}
