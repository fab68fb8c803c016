/**
 * Revocation under storage faults: a small published store on S3 (moto, started here),
 * two `serve --store` gateway processes with the default poll and S3 retries reaching it through
 * the fault-injecting proxy (test/helpers/fault-proxy.ts); the writer publishes straight to moto.
 * Each trial: a key is created and published, served (200) by both gateways; then it is revoked
 * and published, and the time from that publish returning until both answer 401 is measured.
 * Scenarios: every storage request failing (connection reset) from 1 s before the publish until
 * 1 s after it returned (a 2-second outage around the publish), and one request in three failing
 * at random throughout.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { KeyStore, openDatabase, publishStore } from '@snapdeck/store';
import { startFaultProxy } from '../../../test/helpers/fault-proxy.ts';
import { startS3Server } from '../../../test/helpers/s3-server.ts';
import { waitForHttp } from './process.ts';

export interface FaultFigures {
  /** ms from the revoking publish's return to 401 on both gateways, one per trial. */
  outage: number[];
  oneInThree: number[];
  failedRequests: { outage: number; oneInThree: number; total: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function statusOf(url: string, key: string): Promise<number> {
  try {
    const response = await fetch(url, { headers: { 'X-API-Key': key } });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

export async function revokeUnderFaults(options: { cli: string; work: string; snapshots: string; trials: number; ports: [number, number]; children: ChildProcess[] }): Promise<FaultFigures> {
  const s3 = await startS3Server();
  const proxy = await startFaultProxy(s3, { seed: 20_261_125 });
  const location = s3.newLocation('bench-store');
  const driver = s3.open(location);
  const db = openDatabase(join(options.work, 'faults-writer.db'));
  const keys = new KeyStore(db);
  try {
    keys.create({ name: 'ops' });
    await publishStore(db, driver);
    const bases = options.ports.map((port) => `http://127.0.0.1:${port}`);
    for (const [i, port] of options.ports.entries()) {
      const gateway = spawn(process.execPath, [options.cli, 'serve', '--port', String(port), '--snapshots', options.snapshots, '--store', location, '--cache-dir', join(options.work, `faults-cache-${i}`)], {
        stdio: ['ignore', 'ignore', 'inherit'],
        env: { ...process.env, ...proxy.env, LOG_LEVEL: 'silent' },
      });
      options.children.push(gateway);
    }
    await Promise.all(bases.map((base) => waitForHttp(`${base}/healthz`, 60)));
    const until = async (key: string, expected: number): Promise<number> => {
      const started = performance.now();
      const pending = new Set(bases);
      while (pending.size > 0) {
        for (const base of [...pending]) if ((await statusOf(`${base}/v1/games`, key)) === expected) pending.delete(base);
        if (pending.size === 0) break;
        if (performance.now() - started > 120_000) throw new Error(`not ${expected} on both gateways within 120 s`);
        await sleep(10);
      }
      return performance.now() - started;
    };
    const trial = async (before?: () => void, after?: () => void): Promise<number> => {
      const { key, record } = keys.create({ name: 'trial' });
      await publishStore(db, driver);
      await until(key, 200);
      keys.revoke(record.id);
      before?.();
      await publishStore(db, driver);
      after?.();
      return until(key, 401);
    };

    const outage: number[] = [];
    proxy.resetStats();
    for (let i = 0; i < options.trials; i++) {
      outage.push(await trial(() => proxy.failFor(1000), () => proxy.failFor(1000)));
      await sleep(1000); // the outage is over before the next trial's key is created
    }
    const outageFailed = proxy.stats.failed;
    let total = proxy.stats.requests;

    const oneInThree: number[] = [];
    proxy.resetStats();
    proxy.failOneIn(3);
    for (let i = 0; i < options.trials; i++) oneInThree.push(await trial());
    proxy.clear();
    total += proxy.stats.requests;
    return { outage, oneInThree, failedRequests: { outage: outageFailed, oneInThree: proxy.stats.failed, total } };
  } finally {
    db.close();
    await driver.close();
    await proxy.stop();
    await s3.stop();
  }
}
