/**
 * Model-based test of the deck change feed (decisions.md "Deck changes"): random sequences of
 * imports into a writer database (new decks, edits, updatedAt earlier than anything before, equal
 * to another deck's, in the future; privatizations, deletions, moves to another game, decks made
 * public again), publishes of the store, removals pruned, and a partner syncing at random points
 * with `@snapdeck/client`'s syncDecks through one of two gateways that follow the published store,
 * each advanced to the current version only when the sequence says (so they are often at different
 * versions, and one may move forward in the middle of a sync), with keys of every scope.
 *
 * After every sync that succeeds, the partner's copy (ids and updatedAt) equals the public decks of
 * the newest version it has read (the version of the gateway's last answer, or the version its
 * copy already had when that gateway is behind it: the sync then waits for nothing and changes
 * nothing). Along the way: a feed page names each deck at most once, a removal carries only the
 * id, a deck never public in the game never appears, a sync restarts with `reset` ('checkpoint
 * gone') exactly when its checkpoint is older than a removal pruned from the version it reads, and
 * a key without a scope fails with PermissionError (the partner keeps what it had).
 *
 * SNAPDECK_CASES × 0.1 sequences (10,000 under `npm run test:deep`; 300 by default).
 */
import { join } from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionError, SnapdeckClient, type DeckCheckpoint } from '@snapdeck/client';
import { startGateway, type RunningGateway } from '@snapdeck/gateway';
import { FsDriver, build } from '@snapdeck/snapshot';
import {
  DECK_CURSOR_SECRET, KeyStore, decodeDeckChangesCursor, getOrCreateSecret, importDecks, openDatabase, pruneDeckChanges, publishStore, type Db,
} from '@snapdeck/store';
import { casesFor, fcParams } from '../helpers/cases.ts';
import { writeGeneratedCatalog } from '../helpers/catalog.ts';
import { idGenerator, iso } from '../helpers/decks.ts';
import { tempDir } from '../helpers/harness.ts';
import { SLOTS, step, type Gateway, type Line, type Step, type When } from '../helpers/deck-feed-steps.ts';

const FILE = 'test/generated/deck-feed-model.test.ts';
const GAME = 'gundam';
const OTHER = 'digimon';
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T22:00:00.000Z');
const POOL = idGenerator(4404);
/** The deck ids of every sequence: a deck deleted may be created again with the same id. */
const IDS = Array.from({ length: SLOTS }, POOL);

interface ModelDeck {
  game: string;
  visibility: 'public' | 'private';
  createdAt: number;
  updatedAt: number;
}

/** A published version: the game's public decks (id → updatedAt) and the newest removal pruned then. */
interface Version {
  index: number;
  decks: Map<string, string>;
  prunedThrough: number;
}

let dir: string;
let cleanup: () => Promise<void>;
let writer: Db;
let driver: FsDriver;
let cursorKey: Buffer;
const gateways = {} as Record<Gateway, RunningGateway>;
const keys = {} as Record<'full' | 'browse' | 'none', string>;
/** The writer's decks (every game, any visibility). */
const decks = new Map<string, ModelDeck>();
const versions = new Map<string, Version>();
let latest: string;
const served = {} as Record<Gateway, string>;
/** Ids public in GAME after some import (committed): the only ids the feed may name. */
const everPublic = new Set<string>();
let runs = 0;
let sequences = 0;
/** What the syncs met, printed at the end: a run that never met a case did not test it. */
const met = { syncs: 0, refused: 0, firstSyncs: 0, gone: 0, behind: 0, midSyncAdvances: 0, olderGateway: 0, removals: 0, regone: 0 };

const publicOf = (): Map<string, string> =>
  new Map([...decks].filter(([, d]) => d.game === GAME && d.visibility === 'public').map(([id, d]) => [id, iso(d.updatedAt)]));

const timing = { publishMs: 0, advanceMs: 0 };
async function publish(): Promise<void> {
  const t = performance.now();
  const result = await publishStore(writer, driver, { keep: 3, pruneMinAgeMs: 0 });
  if (!versions.has(result.version)) {
    const prunedThrough = writer.prepare<[], number>('SELECT pruned_through FROM deck_change_log').pluck().get()!;
    versions.set(result.version, { index: versions.size, decks: publicOf(), prunedThrough });
    for (const id of publicOf().keys()) everPublic.add(id);
  }
  latest = result.version;
  timing.publishMs += performance.now() - t;
}

async function advance(gateway: Gateway): Promise<void> {
  const t = performance.now();
  const follower = gateways[gateway].store as unknown as { refresh(): Promise<void>; settled(): Promise<void> };
  await follower.refresh();
  await follower.settled();
  expect(gateways[gateway].store.status().version, `gateway ${gateway} follows the store`).toBe(latest);
  served[gateway] = latest;
  timing.advanceMs += performance.now() - t;
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-deck-feed-model-'));
  await writeGeneratedCatalog(join(dir, 'catalog'), { gundam: 5, digimon: 5 });
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [100] });
  writer = openDatabase(join(dir, 'writer.db'));
  const keyStore = new KeyStore(writer);
  const quota = 1_000_000_000;
  keys.full = keyStore.create({ name: 'partner', scopes: ['decks:browse:public', 'decks:read:public'], quota }).key;
  keys.browse = keyStore.create({ name: 'browse only', scopes: ['decks:browse:public'], quota }).key;
  keys.none = keyStore.create({ name: 'no scope', quota }).key;
  cursorKey = getOrCreateSecret(writer, DECK_CURSOR_SECRET);
  driver = new FsDriver(join(dir, 'store'));
  await publish();
  for (const name of ['A', 'B'] as const) {
    gateways[name] = await startGateway({
      port: 0, host: '127.0.0.1', snapshots: join(dir, 'snapshots'), store: join(dir, 'store'), cacheDir: join(dir, `cache-${name}`),
      // Never on its own: the sequence says when each gateway looks at the store.
      storePollMs: 3_600_000, log: pino({ level: 'silent' }),
    });
    await advance(name);
  }
}, 120_000);

afterAll(async () => {
  for (const gateway of Object.values(gateways)) await gateway.close();
  writer?.close();
  await cleanup?.();
  if (sequences > 0) console.log(`deck feed model: ${sequences} sequences; ${JSON.stringify(met)} ${JSON.stringify(timing)}`);
});

/** The updatedAt a line asks for, against the decks there are. */
function updatedAtFor(when: When, id: string): number {
  const times = [...decks.values()].map((d) => d.updatedAt);
  const min = times.length > 0 ? Math.min(...times) : T0;
  const others = [...decks].filter(([other]) => other !== id).map(([, d]) => d.updatedAt);
  if (when === 'earliest') return min - HOUR;
  if (when === 'equal' && others.length > 0) return others[runs % others.length]!;
  if (when === 'future') return T0 + 400 * 24 * HOUR;
  if (when === 'later') return (decks.get(id)?.updatedAt ?? T0) + HOUR;
  return T0 - ((runs * 7919) % 500) * HOUR;
}

async function importStep(lines: Line[]): Promise<void> {
  const texts: string[] = [];
  for (const l of lines) {
    const id = IDS[l.slot]!;
    runs += 1;
    if (l.op === 'delete') {
      texts.push(JSON.stringify({ id, deleted: true }));
      decks.delete(id);
      continue;
    }
    const updatedAt = updatedAtFor(l.when, id);
    const deck: ModelDeck = { game: l.moved ? OTHER : GAME, visibility: l.visibility, createdAt: updatedAt - HOUR, updatedAt };
    decks.set(id, deck);
    texts.push(JSON.stringify({
      id, gameId: deck.game, name: `deck ${l.slot}`, ownerDisplayName: 'model', visibility: deck.visibility,
      createdAt: iso(deck.createdAt), updatedAt: iso(deck.updatedAt), cards: [],
    }));
  }
  await importDecks(writer, texts);
  // Public once committed: a later removal may name it even if no publish carried it public.
  for (const id of publicOf().keys()) everPublic.add(id);
}

interface Partner {
  checkpoint: DeckCheckpoint | null;
  copy: Map<string, string>;
  /** The version its copy equals. */
  version: string | null;
}

async function syncStep(partner: Partner, s: Extract<Step, { kind: 'sync' }>): Promise<void> {
  met.syncs += 1;
  const gateway = gateways[s.gateway];
  let requests = 0;
  let lastVersion = served[s.gateway];
  const startVersion = versions.get(served[s.gateway])!;
  const client = new SnapdeckClient({
    baseUrl: `${gateway.url}/v1`,
    apiKey: keys[s.key],
    retry: { maxRetries: 0 },
    fetch: async (input, init) => {
      lastVersion = served[s.gateway];
      const response = await fetch(input, init);
      requests += 1;
      const url = new URL(String(input));
      if (url.pathname === '/v1/decks/changes' && response.status === 200) {
        const page = ((await response.clone().json()) as { data: { changes: Array<Record<string, string>> } }).data;
        const ids = page.changes.map((c) => c.id!);
        expect(new Set(ids).size, `each deck once a page: ${ids}`).toBe(ids.length);
        for (const change of page.changes) {
          expect(everPublic.has(change.id!), `${change.id} was public in ${GAME} at some version`).toBe(true);
          if (change.change === 'removed') expect(Object.keys(change).sort()).toEqual(['change', 'id']);
        }
      }
      // The gateway moves to the current version between two requests of the sync.
      if (s.advanceAfter === requests) {
        met.midSyncAdvances += served[s.gateway] === latest ? 0 : 1;
        await advance(s.gateway);
      }
      return response;
    },
  });
  const checkpointPosition = partner.checkpoint === null ? null : decodeDeckChangesCursor(cursorKey, partner.checkpoint, GAME)!.position;
  const copy = new Map(partner.copy);
  const resets: string[] = [];
  const sync = client.syncDecks(GAME, { checkpoint: partner.checkpoint, behindWaitMs: 0, limit: s.limit });
  try {
    for await (const event of sync) {
      if (event.type === 'reset') {
        resets.push(event.reason);
        copy.clear();
      }
      if (event.type === 'upsert') copy.set(event.deck.id, event.deck.updatedAt);
      if (event.type === 'removed') copy.delete(event.id);
    }
  } catch (error) {
    // A key without a scope: refused (the partner keeps its copy and checkpoint); the full key never is.
    expect(s.key, String(error)).not.toBe('full');
    expect(error).toBeInstanceOf(PermissionError);
    met.refused += 1;
    return;
  }
  expect(s.key, 'a key without decks:browse:public is refused').not.toBe('none');
  const gone = checkpointPosition !== null && checkpointPosition < startVersion.prunedThrough;
  // A reset: for a first sync, or 'checkpoint gone' exactly when a removal after the checkpoint was
  // pruned; then again only if the gateway moved mid-sync to a version that pruned past the
  // enumeration's own cursor.
  expect(resets.slice(0, 1), 'the first reset').toEqual(partner.checkpoint === null ? ['first sync'] : gone ? ['checkpoint gone'] : []);
  expect(resets.slice(1), 'resets after the first').toEqual(s.advanceAfter === null ? [] : resets.slice(1).map(() => 'checkpoint gone'));
  met.regone += resets.length > 1 ? 1 : 0;
  const read = versions.get(lastVersion)!;
  const before = partner.version === null ? null : versions.get(partner.version)!;
  const newest = before && before.index > read.index && resets.length === 0 ? partner.version! : lastVersion;
  expect(copy, `after a sync through ${s.gateway}, the copy equals the public decks of the version read`).toEqual(versions.get(newest)!.decks);
  met.firstSyncs += partner.checkpoint === null ? 1 : 0;
  met.gone += gone ? 1 : 0;
  met.behind += sync.progress.behind;
  met.olderGateway += newest !== lastVersion ? 1 : 0;
  met.removals += sync.progress.removals;
  partner.checkpoint = sync.checkpoint;
  partner.copy = copy;
  partner.version = newest;
}

/** Sequences the model once found wrong: run first, every time (fast-check's examples). */
const FOUND: Step[][] = [
  // Gateway A moves to a newer version between a feed page and the details of its upsert: the sync
  // must not end with the newer deck under the older page's updatedAt.
  [
    { kind: 'import', lines: [{ slot: 0, op: 'upsert', visibility: 'public', when: 'earliest', moved: false }] },
    { kind: 'publish', advance: 'A' },
    { kind: 'sync', gateway: 'B', key: 'full', advanceAfter: null, limit: 1 },
    { kind: 'import', lines: [{ slot: 0, op: 'upsert', visibility: 'public', when: 'earliest', moved: false }] },
    { kind: 'publish', advance: 'B' },
    { kind: 'sync', gateway: 'A', key: 'full', advanceAfter: 1, limit: 1 },
  ],
];

describe('the deck change feed against a model of imports, publishes and two gateways', () => {
  it("after every sync, the partner's copy equals the public decks of the version it read", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        sequences += 1;
        // The same start for every sequence (so that a replay is the same case): no deck, no
        // removal kept, both gateways current.
        if (decks.size > 0) await importStep([...decks.keys()].map((id) => ({ slot: IDS.indexOf(id), op: 'delete' as const })));
        pruneDeckChanges(writer, 0, Date.now() + 1000 * 24 * HOUR);
        everPublic.clear();
        await publish();
        await advance('A');
        await advance('B');
        const partner: Partner = { checkpoint: null, copy: new Map(), version: null };
        for (const s of steps) {
          if (s.kind === 'import') await importStep(s.lines);
          else if (s.kind === 'publish') {
            await publish();
            if (s.advance === 'A' || s.advance === 'both') await advance('A');
            if (s.advance === 'B' || s.advance === 'both') await advance('B');
          }
          else if (s.kind === 'advance') await advance(s.gateway);
          else if (s.kind === 'prune') pruneDeckChanges(writer, s.keepDays, Date.now() + s.aheadDays * 24 * HOUR);
          else await syncStep(partner, s);
        }
        // Every sequence ends with both gateways current and a full-key sync: it reaches the newest version.
        await publish();
        await advance('A');
        await advance('B');
        await syncStep(partner, { kind: 'sync', gateway: 'A', key: 'full', advanceAfter: null, limit: 1000 });
        expect(partner.version).toBe(latest);
      }),
      fcParams(FILE, casesFor(0.1, 20), { examples: FOUND.map((steps) => [steps] as [Step[]]) }),
    );
  }, 3_600_000);

  it('a sync through a gateway behind the cursor waits for it to catch up, then ends at the newest version', async () => {
    await importStep([{ slot: 0, op: 'upsert', visibility: 'public', when: 'later', moved: false }]);
    await publish();
    await advance('A');
    await advance('B');
    const partner: Partner = { checkpoint: null, copy: new Map(), version: null };
    await syncStep(partner, { kind: 'sync', gateway: 'A', key: 'full', advanceAfter: null, limit: 1000 });
    await importStep([{ slot: 1, op: 'upsert', visibility: 'public', when: 'earliest', moved: false }, { slot: 0, op: 'delete' }]);
    await publish();
    await advance('A');
    await syncStep(partner, { kind: 'sync', gateway: 'A', key: 'full', advanceAfter: null, limit: 1000 });
    // One more version, which B has not loaded either: B is two versions behind the partner's checkpoint's.
    await importStep([{ slot: 2, op: 'upsert', visibility: 'public', when: 'future', moved: false }, { slot: 1, op: 'upsert', visibility: 'private', when: 'later', moved: false }]);
    await publish();
    const client = new SnapdeckClient({ baseUrl: `${gateways.B.url}/v1`, apiKey: keys.full });
    // Its answers say "more to come" until it catches up, 600 ms from now.
    const catchingUp = new Promise((resolve) => setTimeout(resolve, 600)).then(() => advance('B'));
    const sync = client.syncDecks(GAME, { checkpoint: partner.checkpoint, behindWaitMs: 5000 });
    const copy = new Map(partner.copy);
    for await (const event of sync) {
      if (event.type === 'upsert') copy.set(event.deck.id, event.deck.updatedAt);
      if (event.type === 'removed') copy.delete(event.id);
    }
    await catchingUp;
    expect(sync.progress.behind).toBeGreaterThan(0);
    expect(sync.progress).toMatchObject({ upserts: 1, removals: 1 });
    expect(copy).toEqual(versions.get(latest)!.decks);
  });
});
