/**
 * `@snapdeck/client` syncCards and the nightly mirror example against a real
 * gateway: a first sync walks (reset first), later ones fetch only the changes (one request for a
 * handful), a checkpoint too old (410, after gc) falls back to a walk; the copy always ends equal
 * to the current version.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GoneError, SnapdeckClient, type CardCheckpoint } from '@snapdeck/client';
import { FsDriver, collectGarbage } from '@snapdeck/snapshot';
import { buildCards, renamed, walkAll, type Card } from './helpers/card-changes.ts';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, waitFor, type TestGateway } from './helpers/harness.ts';

const GAME = 'gundam';
const ROOT = join(import.meta.dirname, '..');
const EXAMPLE = join(ROOT, 'packages', 'client', 'examples', 'nightly-cards.ts');
let dir: string;
let cleanup: () => Promise<void>;
let gateway: TestGateway;
let key: string;
let client: SnapdeckClient;
let pool: Card[];
let catalog: Card[];

async function publish(cards: Card[]): Promise<string> {
  catalog = cards;
  const result = await buildCards(join(dir, 'catalog'), join(dir, 'snapshots'), GAME, cards);
  if (gateway) await waitFor(async () => (await getJson(`${gateway.url}/readyz`)).body?.versions?.[GAME] === result.version, 10_000);
  return result.version;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-sync-cards-'));
  pool = (await writeGeneratedCatalog(join(dir, 'catalog'), { gundam: 80, digimon: 2, 'grand-archive': 2, 'chrono-core': 2 }))[GAME] as Card[];
  for (const game of ['digimon', 'grand-archive', 'chrono-core'] as const) {
    await buildCards(join(dir, 'catalog'), join(dir, 'snapshots'), game, (await writeGeneratedCatalog(join(dir, 'other'), { [game]: 2 }))[game] as Card[]);
  }
  await publish(pool.slice(0, 50));
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db'), pointerTtlMs: 0 });
  key = gateway.createKey();
  client = new SnapdeckClient({ baseUrl: gateway.base, apiKey: key });
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

/** Runs a sync into `copy`; returns the event types in order and the sync. */
async function syncInto(copy: Map<string, unknown>, checkpoint: CardCheckpoint | null) {
  const sync = client.syncCards(GAME, { checkpoint });
  const types: string[] = [];
  for await (const event of sync) {
    types.push(event.type);
    if (event.type === 'reset') copy.clear();
    if (event.type === 'upsert') copy.set(event.hit.id, event.hit);
    if (event.type === 'delete') copy.delete(event.cardId);
  }
  return { types, sync };
}

const currentCopy = async () => (await walkAll(gateway.base, GAME, { 'X-API-Key': key })).hits;

describe('syncCards', () => {
  it('walks without a checkpoint, then syncs only what changed, across several builds and a gc', async () => {
    const copy = new Map<string, unknown>();
    const first = await syncInto(copy, null);
    expect(first.types[0]).toBe('reset');
    expect(first.types.at(-1)).toBe('checkpoint');
    expect(first.types.filter((t) => t === 'upsert')).toHaveLength(50);
    expect(copy).toEqual(await currentCopy());
    const checkpoint = JSON.parse(JSON.stringify(first.sync.checkpoint)) as CardCheckpoint; // plain JSON
    expect(checkpoint.game).toBe(GAME);

    // Nothing changed: no event but the checkpoint, one request.
    const idle = await syncInto(copy, checkpoint);
    expect(idle.types).toEqual(['checkpoint']);
    expect(idle.sync.progress.requests).toBe(1);

    // Three builds: edits, removals, additions; one sync catches up in one request.
    await publish([...catalog.slice(2).map((c, i) => (i % 10 === 0 ? renamed(c, `Night 1 ${i}`) : c)), pool[60]!]);
    await publish([...catalog.filter((c) => c.id !== pool[60]!.id), pool[61]!, pool[62]!]);
    const v3 = await publish(catalog.map((c, i) => (i === 5 ? renamed(c, 'Night 3') : c)));
    const nightly = await syncInto(copy, checkpoint);
    expect(nightly.types).not.toContain('reset');
    expect(nightly.sync.progress.requests).toBe(1);
    expect(nightly.sync.checkpoint).toEqual({ game: GAME, version: v3 });
    expect(copy).toEqual(await currentCopy());

    // A gc that ages out the records the old checkpoint needs: 410, then a walk.
    await collectGarbage({ storage: new FsDriver(join(dir, 'snapshots')), games: [GAME], keep: 1, minAgeHours: 0, now: new Date(Date.now() + 40 * 86_400_000) });
    await expect(client.getCardChanges(GAME, { since: checkpoint.version })).rejects.toBeInstanceOf(GoneError);
    const stale = new Map(copy);
    stale.set('GD99-999', { id: 'GD99-999' }); // something the reset must drop
    const fallback = await syncInto(stale, checkpoint);
    expect(fallback.types[0]).toBe('reset');
    expect(stale).toEqual(await currentCopy());
    expect(fallback.sync.checkpoint).toEqual({ game: GAME, version: v3 });
  });

  it('the nightly example keeps a JSONL file equal to the current version', async () => {
    const run = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), [EXAMPLE, GAME, dir], {
          cwd: ROOT, env: { ...process.env, SNAPDECK_URL: gateway.base, SNAPDECK_KEY: key }, stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.once('exit', (code) => resolve({ code, stderr }));
      });
    const mirrored = async () => new Map((await readFile(join(dir, `${GAME}.cards.jsonl`), 'utf8')).split('\n').filter(Boolean).map((l) => [JSON.parse(l).id, JSON.parse(l)]));
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('full walk');
    expect(await mirrored()).toEqual(await currentCopy());
    await publish([...catalog.slice(1).map((c, i) => (i === 3 ? renamed(c, 'Example edit') : c)), pool[70]!]);
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('changes only, 3 upserts/deletes, 1 requests');
    expect(await mirrored()).toEqual(await currentCopy());
    const third = await run();
    expect(third.stderr).toContain('changes only, 0 upserts/deletes, 1 requests');
  });
});
