/**
 * Model-based test of card walks (fast-check `commands`): random catalogs rebuilt into new
 * versions, walks started at random page sizes (pre-rendered or not) and advanced a few pages at a
 * time, interleaved with `gc` runs. Invariants (decisions.md "Cards"):
 *
 * - a walk pins the version it started on: when it ends (cursor null) it has yielded every id of
 *   that version exactly once, in one fixed order, and `totalHits` was that version's size;
 * - a walk fails only with 400 `Invalid cursor`, and only when its version was collected by gc.
 *
 * Each run builds into a fresh folder with a gateway of its own (pointer TTL 0, so a new current
 * version is seen at once). SNAPDECK_CASES (test/helpers/cases.ts) sets how many commands run.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build, collectGarbage } from '@snapdeck/snapshot';
import { startGateway, type RunningGateway } from '@snapdeck/gateway';
import { COMMANDS_REPLAY_PATH, casesFor, fcParams } from '../helpers/cases.ts';
import { writeGeneratedCatalog } from '../helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, waitFor } from '../helpers/harness.ts';

const GAME = 'gundam';
const PRE_RENDERED = [7, 25];
const COMMANDS_PER_RUN = 12;

interface Walk {
  version: string;
  hitsPerPage: number;
  cursor: string | null;
  seen: string[];
  /** Set when the walk ended with Invalid cursor. */
  failed: boolean;
}

interface Model {
  /** Card ids of each version built, by version id. */
  versions: Map<string, string[]>;
  current: string | null;
  /** Versions gc has deleted at some point (a rebuild of the same catalog may bring one back). */
  collected: Set<string>;
  walks: Walk[];
}

interface Real {
  storage: FsDriver;
  catalogDir: string;
  base: string;
  headers: Record<string, string>;
}

let dir: string;
let cleanup: () => Promise<void>;
let runs = 0;
let key: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-cards-model-'));
  // Keys live in the database; one key serves every run's gateway.
  const keys = await startTestGateway({ snapshots: join(dir, 'none'), db: join(dir, 'keys.db') });
  key = keys.createKey({ quota: 100_000_000 });
  await keys.close();
});

afterAll(async () => {
  await cleanup?.();
});

/**
 * This model is about cursors, rebuilds and gc; no step searches. The versions it builds have no
 * search index: Pagefind's fixed cost (about 0.1 s a build) across the deep suite's 1,300 rebuilds
 * took 126 s of a CI run that has none to spare. Indexes are built, served, kept and collected
 * with their versions in test/search.test.ts, and every id a walk yields is found in
 * test/search-finds.test.ts.
 */
const WITHOUT_SEARCH = { withoutSearchIndex: true } as const;

class Rebuild implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly seed: number,
    readonly size: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const cards = await writeGeneratedCatalog(real.catalogDir, { [GAME]: this.size }, this.seed);
    const [result] = await build({ catalogDir: real.catalogDir, storage: real.storage, hitsPerPage: PRE_RENDERED, games: [GAME], ...WITHOUT_SEARCH });
    model.versions.set(result!.version, cards[GAME]!.map((card) => card.id));
    model.current = result!.version;
    // The gateway picks a new pointer up in the background: wait until it serves this version.
    await waitFor(async () => (await getJson(`${real.base.replace(/\/v1$/, '')}/readyz`)).body?.versions?.[GAME] === result!.version, 10_000, `the gateway never served ${result!.version}`);
  }
  toString = () => `rebuild(seed=${this.seed} size=${this.size})`;
}

class StartWalk implements fc.AsyncCommand<Model, Real> {
  constructor(readonly hitsPerPage: number) {}
  check = (model: Readonly<Model>) => model.current !== null;
  async run(model: Model, real: Real): Promise<void> {
    const version = model.current!;
    const r = await getJson(`${real.base}/games/${GAME}/cards?hitsPerPage=${this.hitsPerPage}`, real.headers);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.totalHits, `${this}: totalHits of the current version`).toBe(model.versions.get(version)!.length);
    model.walks.push({ version, hitsPerPage: this.hitsPerPage, cursor: r.body.data.cursor, seen: r.body.data.hits.map((hit: { id: string }) => hit.id), failed: false });
    settle(model, model.walks.at(-1)!);
  }
  toString = () => `startWalk(hitsPerPage=${this.hitsPerPage})`;
}

class StepWalk implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly walk: number,
    readonly pages: number,
  ) {}
  check = (model: Readonly<Model>) => model.walks.some((w) => w.cursor !== null && !w.failed);
  async run(model: Model, real: Real): Promise<void> {
    const open = model.walks.filter((w) => w.cursor !== null && !w.failed);
    const walk = open[this.walk % open.length]!;
    for (let i = 0; i < this.pages && walk.cursor !== null; i++) {
      const r = await getJson(`${real.base}/games/${GAME}/cards?hitsPerPage=${walk.hitsPerPage}&cursor=${encodeURIComponent(walk.cursor)}`, real.headers);
      if (r.status === 400) {
        expect(r.body, `${this}`).toEqual({ error: 'Invalid cursor' });
        expect(model.collected.has(walk.version), `${this}: Invalid cursor on ${walk.version}, which gc never collected`).toBe(true);
        walk.failed = true;
        return;
      }
      expect(r.status, `${this}: ${r.text}`).toBe(200);
      expect(r.body.data.totalHits).toBe(model.versions.get(walk.version)!.length);
      walk.seen.push(...r.body.data.hits.map((hit: { id: string }) => hit.id));
      walk.cursor = r.body.data.cursor;
      settle(model, walk);
    }
  }
  toString = () => `stepWalk(#${this.walk} pages=${this.pages})`;
}

class Gc implements fc.AsyncCommand<Model, Real> {
  constructor(readonly keep: number) {}
  check = (model: Readonly<Model>) => model.current !== null;
  async run(model: Model, real: Real): Promise<void> {
    const result = await collectGarbage({ storage: real.storage, games: [GAME], keep: this.keep, minAgeHours: 0 });
    for (const decision of result.decisions) {
      if (decision.action === 'delete') model.collected.add(decision.version);
      if (decision.version === model.current) expect(decision.action, 'the current version is never collected').toBe('keep');
    }
  }
  toString = () => `gc(keep=${this.keep})`;
}

/** A finished walk yielded each id of its version exactly once. */
function settle(model: Model, walk: Walk): void {
  if (walk.cursor !== null) return;
  const ids = model.versions.get(walk.version)!;
  expect(new Set(walk.seen).size, 'no id twice in one walk').toBe(walk.seen.length);
  expect([...walk.seen].sort(), `the walk yielded exactly the ids of ${walk.version}`).toEqual([...ids].sort());
}

const commands = [
  fc.tuple(fc.nat({ max: 5 }), fc.integer({ min: 1, max: 90 })).map(([seed, size]) => new Rebuild(seed, size)),
  fc.oneof(fc.constantFrom(...PRE_RENDERED), fc.integer({ min: 1, max: 40 }), fc.constant(1000)).map((n) => new StartWalk(n)),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 8 })).map(([w, p]) => new StepWalk(w, p)),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 8 })).map(([w, p]) => new StepWalk(w, p)),
  fc.integer({ min: 0, max: 2 }).map((keep) => new Gc(keep)),
];

describe('card walks against a model of versions, rebuilds and gc', () => {
  it('every walk yields each id of its version once, or fails with Invalid cursor only after its version was collected', async () => {
    const numRuns = Math.max(3, Math.round(casesFor(0.025) / COMMANDS_PER_RUN));
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: COMMANDS_PER_RUN * 2, size: 'max', replayPath: COMMANDS_REPLAY_PATH }), async (cmds) => {
        const folder = join(dir, `run-${runs++}`);
        const storage = new FsDriver(join(folder, 'snapshots'));
        let gateway: RunningGateway | undefined;
        try {
          gateway = await startGateway({ port: 0, host: '127.0.0.1', snapshots: join(folder, 'snapshots'), db: join(dir, 'keys.db'), pointerTtlMs: 0, log: pino({ level: 'silent' }) });
          const real: Real = { storage, catalogDir: join(folder, 'catalog'), base: `${gateway.url}/v1`, headers: { 'X-API-Key': key } };
          const model: Model = { versions: new Map(), current: null, collected: new Set(), walks: [] };
          // Every run starts with one version of each game (/readyz needs them all), so walks can start at once.
          await writeGeneratedCatalog(real.catalogDir, { digimon: 1, 'grand-archive': 1, 'chrono-core': 1 });
          await build({ catalogDir: real.catalogDir, storage, hitsPerPage: [10], ...WITHOUT_SEARCH });
          await new Rebuild(0, 30).run(model, real);
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // Finish every open walk: each must end, exactly, or on a collected version.
          for (let w = 0; model.walks.some((walk) => walk.cursor !== null && !walk.failed); w++) await new StepWalk(w, 1000).run(model, real);
        } finally {
          await gateway?.close();
        }
      }),
      fcParams('test/generated/cards-model.test.ts', numRuns),
    );
  }, 900_000);
});
