import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, S3Driver, StorageUnavailableError, openStorage, s3OptionsFromEnv } from '@snapdeck/snapshot';
import { testDriver, type DriverSubject } from './helpers/driver-suite.ts';
import { FaultyDriver, WriteFaultError } from './helpers/faulty-driver.ts';
import { tempDir } from './helpers/harness.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';

/**
 * One suite, every storage driver (test/helpers/driver-suite.ts): what the builder and the gateway
 * rely on must hold for a local folder, for S3 (a real S3-compatible server, moto, started here)
 * and for the fault-injecting wrapper the fault tests use, alike.
 */
let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.stop();
});

const drivers: Array<{ name: string; make: () => Promise<DriverSubject> }> = [
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
  {
    name: 'FaultyDriver (around FsDriver, no faults)',
    make: async () => {
      const { dir, cleanup } = await tempDir('snapdeck-faulty-');
      return { driver: new FaultyDriver(new FsDriver(dir)), cleanup };
    },
  },
];

for (const { name, make } of drivers) testDriver(name, make);

describe('FaultyDriver', () => {
  it('records successful writes in order, runs its hook after each, and throws after the Nth', async () => {
    const { dir, cleanup } = await tempDir('snapdeck-faulty-');
    try {
      const seen: Array<[string, number]> = [];
      const driver = new FaultyDriver(new FsDriver(dir), { afterWrite: (key, n) => void seen.push([key, n]), throwAfterWrites: 3 });
      expect(driver.location).toBe(new FsDriver(dir).location);
      await driver.put('a', Buffer.from('1'));
      await expect(driver.put('a', Buffer.from('2'), { ifNoneMatch: '*' })).rejects.toThrow(/precondition/);
      await driver.put('b', Buffer.from('2'));
      await expect(driver.put('c', Buffer.from('3'))).rejects.toBeInstanceOf(WriteFaultError);
      // The faulted write did happen (a crash after the write, not instead of it).
      expect(Buffer.from((await driver.get('c'))!.body).toString()).toBe('3');
      expect(driver.writes).toEqual(['a', 'b', 'c']);
      expect(seen).toEqual([['a', 1], ['b', 2], ['c', 3]]);
    } finally {
      await cleanup();
    }
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
