/**
 * Deck deltas, integrity: a writer SIGKILLed at any point of an incremental decks publish leaves the
 * previous version served (or the new one, whole), and the next publish completes — as a delta
 * again, not the whole part, when the kill came after the pointer moved. The writer is a child
 * process (test/helpers/publish-child.ts) killing itself right after a chosen write.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, readPointer } from '@snapdeck/snapshot';
import { StoreFollower, importDecks, openDatabase, publishStore, restoreStore, storeLayout, type Db } from '@snapdeck/store';
import { deck, line } from './helpers/deck-db.ts';
import { tempDir, waitFor } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
const followers: StoreFollower[] = [];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-decks-delta-kill-'));
});
afterAll(async () => {
  for (const follower of followers) await follower.close();
  await cleanup?.();
});

function killedPublish(db: string, location: string, at: string): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join('test', 'helpers', 'publish-child.ts'), db, location, at, '0'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (_code, signal) => resolve(signal));
  });
}

const cards = (n: number) => Array.from({ length: 30 }, (_, i) => ({ cardId: `BT${n % 9}-${String(i).padStart(3, '0')}`, quantity: 1 + (i % 4), zoneId: 'main' }));
/** Decks with 30 cards each: a few thousand make a part of some MB, where a small import is a small delta. */
const some = (count: number, tag: string) => Array.from({ length: count }, (_, i) => deck({ name: `${tag} ${i}`, cards: cards(i), viewCount: (i * 7919) % 1000 }));

describe('SIGKILL of the writer during an incremental decks publish', () => {
  for (const [what, at] of [['mid-delta upload', '/d-'], ['after the manifest, before the pointer', 'versions/'], ['right after the pointer, before keeping its copy', 'current.json']] as const) {
    it(`${what}: the previous version stays served (or the new one, whole); the next publish completes as a delta`, async () => {
      const name = at.replace(/\W/g, '');
      const file = join(dir, `writer-${name}.db`);
      const location = join(dir, `store-${name}`);
      const driver = new FsDriver(location);
      let db: Db = openDatabase(file);
      await importDecks(db, some(3000, 'Base').map(line));
      await publishStore(db, driver, { deltaMinBytes: 0 });
      const follower = new StoreFollower(driver, { pollMs: 600_000, presenceMs: 600_000 });
      followers.push(follower);
      await follower.start();
      const before = (await readPointer(driver, storeLayout.pointer))!.version;
      const added = some(10, `Killed ${name}`);
      await importDecks(db, added.map(line));
      db.close();

      expect(await killedPublish(file, location, at)).toBe('SIGKILL');
      const after = (await readPointer(driver, storeLayout.pointer))!.version;
      if (at === 'current.json') expect(after).not.toBe(before);
      else expect(after).toBe(before);
      await follower.refresh();
      await follower.settled();
      const served = () => {
        const lease = follower.acquire();
        try {
          return added.filter((d) => lease.view.decks.getDeck(d.id) !== null).length;
        } finally {
          lease.release();
        }
      };
      // One view: all of the import or none of it, never an error.
      expect([0, added.length]).toContain(served());
      expect(follower.status().decksVersion).toBe(after);

      db = openDatabase(file);
      try {
        const more = some(5, `After ${name}`);
        await importDecks(db, more.map(line));
        const next = await publishStore(db, driver, { deltaMinBytes: 0 });
        expect(next.decks).toBe('delta');
        await waitFor(async () => {
          await follower.refresh();
          await follower.settled();
          return follower.status().decksVersion === next.version;
        }, 15_000, 'the follower did not take the next version');
        expect(served()).toBe(added.length);
        const restored = await restoreStore(driver, join(dir, `restored-${name}.db`));
        expect(restored.decks).toBe(3000 + added.length + more.length);
      } finally {
        db.close();
      }
    });
  }
});
