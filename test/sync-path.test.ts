/**
 * The gateway answers from memory without going asynchronous (http/pipeline.ts, the snapshot
 * store's MaybePromise reads): once a version and a page are loaded, the real app's fetch returns
 * the Response itself, with the bytes the HTTP server sends. What is not in memory yet still works,
 * asynchronously.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryQuotaCounter, createApp } from '@snapdeck/gateway';
import { KeyStore, openDatabase, type Db } from '@snapdeck/store';
import { SnapshotReader, openStorage } from '@snapdeck/snapshot';
import { startDeckEnv, type DeckTestEnv } from './helpers/decks.ts';

let env: DeckTestEnv;
let db: Db;
let app: ReturnType<typeof createApp>;
let paths: string[];

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 40, gundam: 10, 'grand-archive': 10, 'chrono-core': 10 });
  db = openDatabase(env.dbFile);
  const snapshots = new SnapshotReader(openStorage(env.snapshots), { pointerTtlMs: 60_000 });
  app = createApp({ db, keys: new KeyStore(db), quota: new MemoryQuotaCounter(), snapshots, log: pino({ level: 'silent' }) });
  const first = (await (await fetch(`${env.gateway.base}/games/digimon/cards?hitsPerPage=7`, { headers: { 'X-API-Key': env.key } })).json()) as { data: { cursor: string } };
  paths = [
    '/v1/games',
    '/v1/games/digimon/cards?hitsPerPage=7',
    `/v1/games/digimon/cards?hitsPerPage=7&cursor=${encodeURIComponent(first.data.cursor)}`,
    `/v1/games/digimon/cards/${env.catalogs.digimon![3]!.id}`,
  ];
});

afterAll(async () => {
  db?.close();
  await env?.close();
});

const request = (path: string, encoding = 'br') => new Request(`http://gateway${path}`, { headers: { 'X-API-Key': env.key, 'Accept-Encoding': encoding } });

describe('requests answered from memory', () => {
  it('are answered synchronously once loaded, with the bytes the HTTP server sends', async () => {
    for (const path of paths) {
      expect((await app.fetch(request(path))).status, path).toBe(200); // loads version and page
      const response = app.fetch(request(path));
      expect(response, path).not.toBeInstanceOf(Promise);
      const now = response as Response;
      expect(now.status, path).toBe(200);
      const overHttp = await fetch(`${env.gateway.url}${path}`, { headers: { 'X-API-Key': env.key, 'Accept-Encoding': 'identity' } });
      const identity = await app.fetch(request(path, 'identity'));
      expect(Buffer.from(await identity.arrayBuffer()).equals(Buffer.from(await overHttp.arrayBuffer())), path).toBe(true);
      expect(identity.headers.get('etag'), path).toBe(overHttp.headers.get('etag'));
    }
  });

  it('a page not in memory yet (hitsPerPage not pre-rendered) is answered asynchronously, then from memory', async () => {
    const path = '/v1/games/digimon/cards?hitsPerPage=13';
    const pending = app.fetch(request(path));
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).status).toBe(200);
    expect(app.fetch(request(path))).not.toBeInstanceOf(Promise);
  });

  it('errors are answered synchronously too', () => {
    const response = app.fetch(new Request('http://gateway/v1/games/digimon/cards?hitsPerPage=0', { headers: { 'X-API-Key': env.key } }));
    expect(response).not.toBeInstanceOf(Promise);
    expect((response as Response).status).toBe(400);
  });
});
