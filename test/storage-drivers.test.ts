import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import {
  FsDriver, PreconditionFailedError, S3Driver, StorageUnavailableError, openStorage, s3OptionsFromEnv, type StorageDriver,
} from '@snapdeck/snapshot';
import { tempDir } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

/**
 * One suite, every storage driver: what the builder and the gateway rely on must hold for a
 * local folder and for S3 (a real S3-compatible server, moto, started here) alike.
 */
let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.stop();
});

interface Subject {
  driver: StorageDriver;
  cleanup(): Promise<void>;
}

const drivers: Array<{ name: string; make: () => Promise<Subject> }> = [
  {
    name: 'FsDriver',
    make: async () => {
      const { dir, cleanup } = await tempDir('snapdeck-fs-');
      return { driver: new FsDriver(dir), cleanup };
    },
  },
  {
    name: 'S3Driver',
    make: async () => {
      const driver = s3.open(s3.newLocation('drivers'), { listPageSize: 7 });
      return { driver, cleanup: () => driver.close() };
    },
  },
];

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

describe.each(drivers)('$name', ({ make }) => {
  let subject: Subject;
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

describe('S3Driver configuration and failures', () => {
  it('openStorage gives the S3 driver for s3:// locations, configured from the environment', async () => {
    const driver = openStorage(`s3://${s3.bucket}/some/prefix/`, { ...s3.env });
    try {
      expect(driver).toBeInstanceOf(S3Driver);
      expect(driver.location).toBe(`s3://${s3.bucket}/some/prefix`);
      await driver.put('k.txt', Buffer.from('v'));
      // The prefix is a folder of the bucket: another prefix does not see the key.
      const other = s3.open(`s3://${s3.bucket}/some`);
      expect(await other.list('')).toContain('prefix/k.txt');
      await other.close();
    } finally {
      await driver.close?.();
    }
    expect(s3OptionsFromEnv({}).region).toBe('us-east-1');
    expect(s3OptionsFromEnv({ AWS_REGION: 'eu-west-3' }).region).toBe('eu-west-3');
    expect(s3OptionsFromEnv({ SNAPDECK_S3_ENDPOINT: 'http://x:1' }).endpoint).toBe('http://x:1');
    expect(() => openStorage('s3://')).toThrow(/invalid S3 location/);
    expect(() => openStorage('s3://bucket/a/../b')).toThrow(/invalid S3 location/);
  });

  it('a store that does not answer becomes StorageUnavailableError after retries and timeouts', async () => {
    // A port nobody listens on (refused), and a server that accepts but never answers (timeout).
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const silent = createServer(() => {}).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    try {
      for (const port of [closed, silentPort]) {
        const driver = new S3Driver(`s3://${s3.bucket}/x`, {
          ...s3OptionsFromEnv(s3.env),
          endpoint: `http://127.0.0.1:${port}`,
          maxAttempts: 2,
          requestTimeoutMs: 300,
          connectionTimeoutMs: 300,
        });
        const started = Date.now();
        await expect(driver.get('a')).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(driver.put('a', Buffer.from('1'))).rejects.toBeInstanceOf(StorageUnavailableError);
        await expect(driver.list('')).rejects.toThrow(/storage unavailable/);
        expect(Date.now() - started).toBeLessThan(15_000);
        await driver.close();
      }
    } finally {
      silent.close();
    }
  });
});
