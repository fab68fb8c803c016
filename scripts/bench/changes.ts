/**
 * Card changes benchmark. One run on this machine:
 *   - builds a 100,000-card generated catalog (digimon), then the same catalog with 1 % of its
 *     cards changed (1,000: a third edited, a third removed, a third added), pages of 1000
 *     pre-rendered, and reports the build's seconds and what the change records cost in it (card
 *     hashes, their file, reading the base's, the diff and the record, timed on the same entries);
 *   - serves both with a real gateway and measures a partner's nightly sync, brotli on the wire:
 *     the full walk (hitsPerPage 1000, the baseline) against `syncCards` from the first version's
 *     checkpoint: bytes received and requests, and checks both copies end equal.
 *
 * Usage: npm run bench:changes [-- --cards 100000]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { SnapdeckClient } from '@snapdeck/client';
import { startGateway } from '@snapdeck/gateway';
import {
  FsDriver, build, cardHashes, diffCardHashes, encodeCardHashes, readCardHashes, readCatalog, recordChanges,
} from '@snapdeck/snapshot';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { generateCatalog } from '../generate-catalog.ts';
import { printTargets } from './lib/targets.ts';

const args = process.argv.slice(2);
const CARDS = Number(args.includes('--cards') ? args[args.indexOf('--cards') + 1] : 100_000) || 100_000;
const GAME = 'digimon';
const CHANGED = Math.round(CARDS / 100);

const work = await mkdtemp(join(tmpdir(), 'snapdeck-bench-changes-'));
const catalogDir = join(work, 'catalog');
const snapshots = join(work, 'snapshots');
const storage = new FsDriver(snapshots);
console.log(`snapdeck card changes benchmark — ${new Date().toISOString()}, node ${process.version}, ${CARDS.toLocaleString('en')} ${GAME} cards, ${CHANGED.toLocaleString('en')} changed`);

// The night before: CARDS cards. Tonight: a third of 1 % edited, a third removed, a third added.
const all = [...generateCatalog({ game: GAME, count: CARDS + Math.ceil(CHANGED / 3), seed: 42 })] as Array<Record<string, unknown> & { id: string }>;
const before = all.slice(0, CARDS);
const third = Math.floor(CHANGED / 3);
const step = Math.floor(CARDS / CHANGED);
const edited = new Set(Array.from({ length: third }, (_, i) => before[i * 2 * step]!.id));
const removed = new Set(Array.from({ length: third }, (_, i) => before[i * 2 * step + step]!.id));
const after = [
  ...before.filter((card) => !removed.has(card.id)).map((card) => (edited.has(card.id) ? { ...card, name: { english: `${(card.name as { english: string }).english} (errata)` } } : card)),
  ...all.slice(CARDS, CARDS + (CHANGED - 2 * third)),
];
const { mkdir } = await import('node:fs/promises');
await mkdir(catalogDir, { recursive: true });
const writeCatalog = (cards: unknown[]) => writeFile(join(catalogDir, `${GAME}.jsonl`), cards.map((c) => JSON.stringify(c)).join('\n') + '\n');

async function timedBuild(): Promise<{ version: string; seconds: number }> {
  const started = performance.now();
  const [result] = await build({ catalogDir, storage, games: [GAME], hitsPerPage: [1000] });
  return { version: result!.version, seconds: (performance.now() - started) / 1000 };
}

await writeCatalog(before);
const v1 = await timedBuild();
await writeCatalog(after);
const v2 = await timedBuild();
console.log(`build of ${CARDS.toLocaleString('en')} cards: ${v1.seconds.toFixed(1)} s (first), ${v2.seconds.toFixed(1)} s (1 % changed)`);

// What the change records add to a build, timed alone on the same entries.
const entries = await readCatalog(join(catalogDir, `${GAME}.jsonl`), GAME);
const started = performance.now();
// The steps publish-version.ts adds: hash every card, write the hashes file, then the record (which reads the base's hashes and diffs).
const hashes = await cardHashes(entries);
const hashesFile = encodeCardHashes(hashes);
await storage.put(`_bench/${GAME}/card-hashes.bin`, hashesFile);
const record = await recordChanges(storage, GAME, `${v2.version.slice(0, -6)}bbbbbb`, v1.version, hashes);
const recordSeconds = (performance.now() - started) / 1000;
await storage.delete(`${GAME}/changes/${record.version}.json`);
const diff = diffCardHashes((await readCardHashes(storage, GAME, v1.version))!, hashes);
console.log(`change records: ${recordSeconds.toFixed(2)} s of the build (card hashes file ${(hashesFile.length / 1e6).toFixed(1)} MB; record ${diff.added.length} added, ${diff.changed.length} changed, ${diff.removed.length} removed)`);

// Serve both versions; a partner with a checkpoint at v1 syncs.
const db = join(work, 'snapdeck.db');
const database = openDatabase(db);
const key = new KeyStore(database).create({ name: 'bench', scopes: [], quota: 1_000_000 }).key;
database.close();
const gateway = await startGateway({ port: 0, host: '127.0.0.1', snapshots, db, log: pino({ level: 'silent' }) });

/** fetch asking for brotli and counting what comes over the wire (Content-Length of the encoded body). */
function countingFetch(counter: { bytes: number; requests: number }): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('accept-encoding', 'br');
    const response = await fetch(input, { ...init, headers });
    counter.requests += 1;
    if (response.headers.get('content-encoding') !== 'br') throw new Error(`not brotli: ${String(input)}`);
    counter.bytes += Number(response.headers.get('content-length') ?? NaN);
    return response;
  };
}

const walk = { bytes: 0, requests: 0 };
const walked = new Map<string, unknown>();
const walker = new SnapdeckClient({ baseUrl: `${gateway.url}/v1`, apiKey: key, fetch: countingFetch(walk) });
for await (const hit of walker.walkCards(GAME, { hitsPerPage: 1000 })) walked.set(hit.id, hit);

const sync = { bytes: 0, requests: 0 };
const copy = new Map<string, unknown>();
for (const card of before) copy.set(card.id, null);
const syncer = new SnapdeckClient({ baseUrl: `${gateway.url}/v1`, apiKey: key, fetch: countingFetch(sync) });
const cardSync = syncer.syncCards(GAME, { checkpoint: { game: GAME, version: v1.version } });
let events = 0;
for await (const event of cardSync) {
  events += 1;
  if (event.type === 'reset') throw new Error('the sync fell back to a full walk');
  if (event.type === 'upsert') copy.set(event.hit.id, event.hit);
  if (event.type === 'delete') copy.delete(event.cardId);
}
await gateway.close();
const sameIds = copy.size === walked.size && [...walked.keys()].every((id) => copy.has(id));
const upsertsMatch = [...copy].every(([id, hit]) => hit === null || JSON.stringify(hit) === JSON.stringify(walked.get(id)));
if (!sameIds || !upsertsMatch) throw new Error('the synced copy differs from the walk');
console.log(`full walk: ${walk.requests} requests, ${(walk.bytes / 1e6).toFixed(2)} MB brotli; syncCards: ${sync.requests} request(s), ${(sync.bytes / 1e3).toFixed(1)} kB brotli, ${events - 1} changes; copies equal`);

const ratio = walk.bytes / sync.bytes;
printTargets([
  { figure: `nightly sync of ${CARDS.toLocaleString('en')} cards, 1 % changed: bytes, syncCards vs full walk (hitsPerPage 1000, brotli)`, target: '≥ 50× fewer', measured: `${ratio.toFixed(0)}× fewer (${(sync.bytes / 1e3).toFixed(1)} kB vs ${(walk.bytes / 1e6).toFixed(2)} MB)`, met: ratio >= 50 },
  { figure: 'same: requests', target: '≤ 2', measured: `${sync.requests} (full walk: ${walk.requests})`, met: sync.requests <= 2 },
  { figure: `build time added by the change records, ${CARDS.toLocaleString('en')} cards`, target: '≤ 5 s', measured: `${recordSeconds.toFixed(2)} s (build ${v2.seconds.toFixed(1)} s)`, met: recordSeconds <= 5 },
  { figure: 'model-based test: random builds and syncs from random checkpoints end equal to the current version', target: '0 failures over 10,000 sequences in npm run test:deep', measured: null, source: 'test/generated/changes-model.test.ts' },
]);
await rm(work, { recursive: true, force: true });
