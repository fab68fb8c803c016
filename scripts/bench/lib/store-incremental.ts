/**
 * (h) Deck changes cost what changed (`npm run bench:store -- --only incremental
 * [--decks N] [--imports100 20] [--imports1000 20] [--successive 100]`): the decks part of a store
 * of N generated decks (default 1,000,000) published to a local folder, followed by two
 * `serve --store` gateways (default poll, 1 s). Per import of 100 (then 1,000) decks: the publish's
 * time, bytes uploaded and storage requests (counted by a CountingDriver around the writer's
 * driver), each gateway's bytes downloaded (its snapdeck_store_downloaded_bytes_total), and the
 * time from the publish's return until both gateways serve a deck of the import. Then more
 * imports of 100 decks in a row, and the storage the store then holds against one full part.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { FsDriver, listSizes } from '@snapdeck/snapshot';
import { KeyStore, importDecks, openDatabase, publishStore } from '@snapdeck/store';
import { SYNTHETIC_TEMPLATES, generateDeckLines } from '../../lib/deck-generator.ts';
import { CountingDriver } from '../../../test/helpers/counting-driver.ts';
import { pinServer } from './wrk.ts';
import { waitForHttp } from './process.ts';

export interface IncrementalOptions {
  cli: string;
  work: string;
  snapshots: string;
  /** A writer database of generated decks (a copy: it is written to). */
  dbFile: string;
  count: number;
  seed: number;
  ports: [number, number];
  children: ChildProcess[];
  imports100: number;
  imports1000: number;
  successive: number;
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)]!;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function downloaded(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(/^snapdeck_store_downloaded_bytes_total (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text)?.[1] ?? NaN);
}

async function served(base: string, id: string): Promise<boolean> {
  try {
    const response = await fetch(`${base}/v1/decks/${id}`);
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

export async function incrementalImports(o: IncrementalOptions): Promise<void> {
  const db = openDatabase(o.dbFile);
  new KeyStore(db).create({ name: 'bench' });
  const location = join(o.work, `store-incremental-${o.count}`);
  const writer = new CountingDriver(new FsDriver(location));
  const full = await publishStore(db, writer);
  console.log(`(h) ${o.count.toLocaleString('en')} decks: full publish ${(full.elapsedMs / 1000).toFixed(1)} s, ${mb(full.bytesSent)} sent (decks part ${mb(full.sizes.decks)}), ${[...writer.requests].map(([k, v]) => `${v} ${k}`).join(', ')}`);

  const started = performance.now();
  const gateways = await Promise.all(o.ports.map(async (port, i) => {
    const child = spawn(process.execPath, [o.cli, 'serve', '--port', String(port), '--snapshots', o.snapshots, '--store', location, '--cache-dir', join(o.work, `cache-inc-${i}`), '--address-quota', '1000000000'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    pinServer(child.pid);
    o.children.push(child);
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/healthz`, 600);
    for (;;) {
      const response = await fetch(`${base}/readyz`).catch(() => null);
      if (response?.status === 200) break;
      await sleep(50);
    }
    return base;
  }));
  console.log(`    two gateways started empty, ready (first download, ${mb(full.sizes.decks)} each) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  let seed = o.seed + 1000;
  const trial = async (size: number) => {
    const lines = [...generateDeckLines({ seed: seed++, count: size, templates: SYNTHETIC_TEMPLATES })];
    const marker = lines.map((l) => JSON.parse(l) as { id: string; visibility: string }).find((d) => d.visibility === 'public')!;
    const before = await Promise.all(gateways.map(downloaded));
    await importDecks(db, lines);
    writer.reset();
    const t0 = performance.now();
    const result = await publishStore(db, writer);
    const publishMs = performance.now() - t0;
    const returned = performance.now();
    const pending = new Set(gateways);
    while (pending.size > 0) {
      for (const base of [...pending]) if (await served(base, marker.id)) pending.delete(base);
      if (pending.size > 0) await sleep(10);
      if (performance.now() - returned > 600_000) throw new Error('the import did not propagate within 10 minutes');
    }
    const visibleMs = performance.now() - returned;
    const after = await Promise.all(gateways.map(downloaded));
    return { publishMs, sent: result.bytesSent, kind: result.decks, requests: new Map(writer.requests), visibleMs, downloaded: after.map((a, i) => a - before[i]!) };
  };

  for (const [size, trials] of [[100, o.imports100], [1000, o.imports1000]] as const) {
    if (trials === 0) continue;
    const results: Array<Awaited<ReturnType<typeof trial>>> = [];
    for (let i = 0; i < trials; i++) {
      const r = await trial(size);
      results.push(r);
      console.log(`      trial ${i + 1}: ${r.kind}, publish ${(r.publishMs / 1000).toFixed(1)} s, ${mb(r.sent)} up, ${r.downloaded.map(mb).join(' / ')} down, served by both ${r.visibleMs.toFixed(0)} ms after`);
    }
    const requests = (r: (typeof results)[number]) => [...r.requests].map(([k, v]) => `${v} ${k}`).join(' + ');
    console.log(`    import of ${size} decks, ${trials} trials (publish kind: ${[...new Set(results.map((r) => r.kind))].join('/')}):`);
    console.log(`      bytes uploaded: p50 ${mb(quantile(results.map((r) => r.sent), 0.5))}, max ${mb(Math.max(...results.map((r) => r.sent)))}`);
    const down = results.flatMap((r) => r.downloaded);
    console.log(`      bytes downloaded per gateway: p50 ${mb(quantile(down, 0.5))}, max ${mb(Math.max(...down))}`);
    console.log(`      command return → served by both: p50 ${quantile(results.map((r) => r.visibleMs), 0.5).toFixed(0)} ms, p99 ${quantile(results.map((r) => r.visibleMs), 0.99).toFixed(0)} ms, max ${Math.max(...results.map((r) => r.visibleMs)).toFixed(0)} ms`);
    console.log(`      publish time: p50 ${(quantile(results.map((r) => r.publishMs), 0.5) / 1000).toFixed(1)} s, max ${(Math.max(...results.map((r) => r.publishMs)) / 1000).toFixed(1)} s`);
    console.log(`      writer storage requests per import (first trial): ${requests(results[0]!)}`);
  }

  const kinds = new Map<string, number>();
  for (let i = 0; i < o.successive; i++) {
    await importDecks(db, generateDeckLines({ seed: seed++, count: 100, templates: SYNTHETIC_TEMPLATES }));
    const result = await publishStore(db, writer);
    kinds.set(result.decks ?? 'none', (kinds.get(result.decks ?? 'none') ?? 0) + 1);
  }
  if (o.successive > 0) {
    const sizes = await listSizes(new FsDriver(location), '_store/');
    const stored = [...sizes].filter(([key]) => !key.startsWith('_store/gateways/')).reduce((sum, [, size]) => sum + size, 0);
    const part = (await publishStore(db, writer)).sizes.decks;
    console.log(`    after ${o.successive} more imports of 100 decks in a row (${[...kinds].map(([k, v]) => `${v} ${k}`).join(', ')}): the store holds ${mb(stored)} = ${(stored / part).toFixed(2)}× one full decks part (${mb(part)}); versions kept: the 5 newest and any under an hour old`);
  }
  db.close();
}
