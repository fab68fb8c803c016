/**
 * Model-based test of the deck store and its HTTP API (fast-check `commands`): random sequences of
 * imports (upserts, deletes, privatising, publishing again, the clock moving) run against a model
 * of decks and against the real thing (the import on the SQLite file, the gateway over HTTP).
 * After any step, checks compare the two:
 *
 * - a full enumeration (every sort, any page size) equals the model's public decks in the
 *   contract's order (descending by the sort field, ties by id), and every page's totalCount is
 *   the model's count;
 * - an `updatedSince` sync resumed from the partner's last checkpoint, deduped by (id, updatedAt),
 *   converges to the model: afterwards the partner's copy holds every public deck at its current
 *   updatedAt, and a full enumeration removes what is no longer public;
 * - following a sync's final nextCursor later returns exactly the decks that now sort after it:
 *   resumption never skips a deck and never repeats one beyond the inclusive boundary;
 * - POST /decks/details resolves exactly the public ids among those asked.
 *
 * SNAPDECK_CASES (test/helpers/cases.ts) sets how many commands run in all.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS_REPLAY_PATH, casesFor, fcParams } from '../helpers/cases.ts';
import { BOTH_SCOPES, importLines, iso, startDeckEnv, type DeckLine, type DeckTestEnv } from '../helpers/decks.ts';
import { idGenerator } from '../helpers/decks.ts';
import { ODD_UNICODE, PROPERTY_NAMES } from '../helpers/hostile-corpus.ts';

const GAMES = ['digimon', 'gundam'] as const;
type Game = (typeof GAMES)[number];
const SORTS = ['updatedAt', 'copyCount', 'viewCount', 'likeCount', 'createdAt'] as const;
type Sort = (typeof SORTS)[number];
const COMMANDS_PER_RUN = 25;
const T0 = Date.parse('2026-05-01T00:00:00.000Z');

interface ModelDeck {
  id: string;
  gameId: Game;
  visibility: 'public' | 'private';
  createdAt: number;
  updatedAt: number;
  copyCount: number;
  viewCount: number;
  likeCount: number;
}

interface Model {
  decks: Map<string, ModelDeck>;
  clock: number;
}

/** What a partner keeps between syncs, per game. */
interface Partner {
  checkpoint: number | null;
  copy: Map<string, number>;
  /** The final nextCursor of the last sync, the updatedSince it was taken under, and the last deck it returned. */
  tail: { cursor: string; since: number; last: [number, string] | null } | null;
}

interface Real {
  env: DeckTestEnv;
  key: string;
  partners: Map<Game, Partner>;
}

let env: DeckTestEnv;
let key: string;
let pool: string[];
/** Every id a run may have created, deleted before the next run starts. */
const touched = new Set<string>();

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 8, gundam: 8 });
  key = env.gateway.createKey({ scopes: BOTH_SCOPES, quota: 100_000_000 });
  const newId = idGenerator(4242);
  pool = Array.from({ length: 10 }, newId);
});

afterAll(async () => {
  await env?.close();
});

const publicDecks = (model: Model, game: Game) => [...model.decks.values()].filter((d) => d.gameId === game && d.visibility === 'public');
const byKey = (a: [number, string], b: [number, string]) => (a[0] - b[0]) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

/** decisions.md "Decks": descending by the sort field, ties by id in the same direction. */
function listingOrder(decks: ModelDeck[], sort: Sort): string[] {
  return [...decks].sort((a, b) => -byKey([a[sort], a.id], [b[sort], b.id])).map((d) => d.id);
}

async function listPage(query: Record<string, string>): Promise<{ decks: Array<{ id: string; updatedAt: string }>; nextCursor: string; hasMore: boolean; totalCount: number }> {
  const r = await env.client.get(`/decks/public?${new URLSearchParams(query)}`, { 'X-API-Key': key });
  expect(r.status, `${JSON.stringify(query)}: ${r.text}`).toBe(200);
  return r.body.data;
}

async function importOne(line: DeckLine | { id: string; deleted: true }): Promise<void> {
  touched.add(line.id);
  await importLines(env.dbFile, [line]);
}

function lineOf(deck: ModelDeck, cardId: string): DeckLine {
  return {
    id: deck.id,
    gameId: deck.gameId,
    // Text fields and zone from the hostile corpus (legal for the import), picked by the deck's id.
    name: `deck ${deck.id.slice(0, 8)} ${ODD_UNICODE[parseInt(deck.id.slice(0, 2), 16) % ODD_UNICODE.length]}`,
    ownerDisplayName: PROPERTY_NAMES[parseInt(deck.id.slice(2, 4), 16) % PROPERTY_NAMES.length]!,
    visibility: deck.visibility,
    createdAt: iso(deck.createdAt),
    updatedAt: iso(deck.updatedAt),
    copyCount: deck.copyCount,
    viewCount: deck.viewCount,
    likeCount: deck.likeCount,
    cards: [{ cardId, quantity: 1, zoneId: 'constructor' }],
  };
}

class Upsert implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly slot: number,
    readonly game: Game,
    readonly visibility: 'public' | 'private',
    readonly step: number,
    readonly counts: [number, number, number],
  ) {}
  check = () => true;
  async run(model: Model, _real: Real): Promise<void> {
    const id = pool[this.slot]!;
    model.clock += this.step;
    const before = model.decks.get(id);
    const deck: ModelDeck = {
      id,
      gameId: this.game,
      visibility: this.visibility,
      createdAt: before?.createdAt ?? model.clock - 1000 * this.slot,
      updatedAt: model.clock,
      copyCount: this.counts[0],
      viewCount: this.counts[1],
      likeCount: this.counts[2],
    };
    model.decks.set(id, deck);
    await importOne(lineOf(deck, env.catalogs[this.game]![this.slot % 8]!.id));
  }
  toString = () => `upsert(#${this.slot} ${this.game} ${this.visibility} +${this.step}ms counts=${this.counts})`;
}

/** Privatise (to 'private') or publish again (to 'public') an existing deck, bumping updatedAt. */
class SetVisibility implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly slot: number,
    readonly visibility: 'public' | 'private',
    readonly step: number,
  ) {}
  check = (model: Readonly<Model>) => model.decks.get(pool[this.slot]!)?.visibility === (this.visibility === 'public' ? 'private' : 'public');
  async run(model: Model, _real: Real): Promise<void> {
    const deck = model.decks.get(pool[this.slot]!)!;
    model.clock += this.step;
    Object.assign(deck, { visibility: this.visibility, updatedAt: model.clock });
    await importOne(lineOf(deck, env.catalogs[deck.gameId]![0]!.id));
  }
  toString = () => `${this.visibility === 'public' ? 'publish' : 'privatise'}(#${this.slot} +${this.step}ms)`;
}

class Delete implements fc.AsyncCommand<Model, Real> {
  constructor(readonly slot: number) {}
  check = () => true;
  async run(model: Model, _real: Real): Promise<void> {
    model.decks.delete(pool[this.slot]!);
    await importOne({ id: pool[this.slot]!, deleted: true });
  }
  toString = () => `delete(#${this.slot})`;
}

class Enumerate implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly game: Game,
    readonly sort: Sort,
    readonly limit: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const want = listingOrder(publicDecks(model, this.game), this.sort);
    const seen: string[] = [];
    let startAfter: string | undefined;
    for (let page = 0; ; page++) {
      expect(page, 'the enumeration ends').toBeLessThanOrEqual(want.length + 1);
      const data = await listPage({ gameId: this.game, sort: this.sort, limit: String(this.limit), ...(startAfter === undefined ? {} : { startAfter }) });
      expect(data.totalCount, `${this} totalCount`).toBe(want.length);
      expect(data.decks.length).toBeLessThanOrEqual(this.limit);
      seen.push(...data.decks.map((d) => d.id));
      startAfter = data.nextCursor;
      if (!data.hasMore) break;
    }
    expect(seen, `${this}`).toEqual(want);
    // The periodic full enumeration is how a partner finds decks that stopped being public.
    const partner = real.partners.get(this.game)!;
    for (const id of [...partner.copy.keys()]) if (!seen.includes(id)) partner.copy.delete(id);
  }
  toString = () => `enumerate(${this.game} sort=${this.sort} limit=${this.limit})`;
}

class Sync implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly game: Game,
    readonly limit: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const partner = real.partners.get(this.game)!;
    const now = publicDecks(model, this.game);

    // The previous sync's final cursor, followed now, gives exactly what sorts after its last deck.
    if (partner.tail) {
      const { cursor, since, last } = partner.tail;
      const after = now
        .filter((d) => d.updatedAt >= since && (last === null || byKey([d.updatedAt, d.id], last) > 0))
        .sort((a, b) => byKey([a.updatedAt, a.id], [b.updatedAt, b.id]))
        .map((d) => d.id);
      const page = await listPage({ gameId: this.game, updatedSince: iso(since), startAfter: cursor, limit: '50' });
      expect(page.decks.map((d) => d.id), `${this}: resuming from the last cursor`).toEqual(after.slice(0, 50));
    }

    const since = partner.checkpoint ?? 0;
    const returned: Array<[number, string]> = [];
    let startAfter: string | undefined;
    let lastCursor = '';
    for (let page = 0; ; page++) {
      expect(page, 'the sync ends').toBeLessThanOrEqual(now.length + 1);
      const data = await listPage({ gameId: this.game, updatedSince: iso(since), limit: String(this.limit), ...(startAfter === undefined ? {} : { startAfter }) });
      for (const deck of data.decks) {
        const at = Date.parse(deck.updatedAt);
        expect(at).toBeGreaterThanOrEqual(since);
        returned.push([at, deck.id]);
        // Dedupe by (id, updatedAt): the inclusive boundary may give the last deck again.
        if (partner.copy.get(deck.id) !== at) partner.copy.set(deck.id, at);
      }
      startAfter = lastCursor = data.nextCursor;
      if (!data.hasMore) break;
    }
    // Ascending by (updatedAt, id), no deck twice within the walk.
    expect(returned, `${this}: ascending`).toEqual([...returned].sort(byKey));
    expect(new Set(returned.map(([, id]) => id)).size, `${this}: no repeats within a walk`).toBe(returned.length);
    // Everything public at or after the checkpoint came back at its current updatedAt.
    const want = now.filter((d) => d.updatedAt >= since).map((d): [number, string] => [d.updatedAt, d.id]).sort(byKey);
    expect(returned, `${this}`).toEqual(want);
    // So the partner's copy holds every public deck at its current updatedAt (stale ones until an enumeration).
    for (const deck of now) expect(partner.copy.get(deck.id), `${this}: ${deck.id} in the partner's copy`).toBe(deck.updatedAt);
    const last = returned.at(-1) ?? null;
    partner.tail = { cursor: lastCursor, since, last };
    if (last) partner.checkpoint = last[0];
  }
  toString = () => `sync(${this.game} limit=${this.limit})`;
}

class Details implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly slots: number[],
    readonly garbage: string[],
  ) {}
  check = () => true;
  async run(model: Model, _real: Real): Promise<void> {
    const ids = [...this.slots.map((slot) => pool[slot]!), ...this.garbage];
    const r = await env.client.post('/decks/details', JSON.stringify({ ids }), { 'X-API-Key': key });
    expect(r.status, r.text).toBe(200);
    const unique = [...new Set(ids)];
    const isPublic = (id: string) => model.decks.get(id)?.visibility === 'public';
    expect(r.body.data.decks.map((d: { id: string }) => d.id).sort(), `${this}`).toEqual(unique.filter(isPublic).sort());
    expect(r.body.data.unresolved, `${this}`).toEqual(unique.filter((id) => !isPublic(id)));
  }
  toString = () => `details(${this.slots.map((s) => `#${s}`).join(',')}${this.garbage.length ? ` +${JSON.stringify(this.garbage)}` : ''})`;
}

const slot = fc.nat({ max: 9 });
const game = fc.constantFrom(...GAMES);
const step = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1000, max: 90_000_000 }));
const count = fc.oneof(fc.constant(0), fc.nat({ max: 3 }), fc.nat({ max: 1_000_000 }));
const commands = [
  fc.tuple(slot, game, fc.constantFrom('public' as const, 'private' as const), step, fc.tuple(count, count, count)).map(([s, g, v, t, c]) => new Upsert(s, g, v, t, c)),
  fc.tuple(slot, game, fc.constant('public' as const), step, fc.tuple(count, count, count)).map(([s, g, v, t, c]) => new Upsert(s, g, v, t, c)),
  fc.tuple(slot, fc.constantFrom('public' as const, 'private' as const), step).map(([s, v, t]) => new SetVisibility(s, v, t)),
  slot.map((s) => new Delete(s)),
  fc.tuple(game, fc.constantFrom(...SORTS), fc.integer({ min: 1, max: 6 })).map(([g, s, l]) => new Enumerate(g, s, l)),
  fc.tuple(game, fc.integer({ min: 1, max: 5 })).map(([g, l]) => new Sync(g, l)),
  fc.tuple(fc.array(slot, { maxLength: 6 }), fc.array(fc.oneof(fc.uuid({ version: 4 }), fc.string({ maxLength: 8 })), { maxLength: 2 })).map(([s, g]) => new Details(s, g)),
];

describe('decks: the store and the HTTP API against a model', () => {
  it('enumerations, syncs, resumed cursors and details agree with the model after any sequence of imports', async () => {
    const runs = Math.max(3, Math.round(casesFor(0.25) / COMMANDS_PER_RUN));
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: COMMANDS_PER_RUN * 2, size: 'max', replayPath: COMMANDS_REPLAY_PATH }), async (cmds) => {
        // Each run starts from an empty store, emptied the way an operator would: delete lines.
        if (touched.size > 0) await importLines(env.dbFile, [...touched].map((id) => ({ id, deleted: true as const })));
        touched.clear();
        const partners = new Map<Game, Partner>(GAMES.map((g) => [g, { checkpoint: null, copy: new Map(), tail: null }]));
        await fc.asyncModelRun(() => ({ model: { decks: new Map(), clock: T0 }, real: { env, key, partners } }), cmds);
      }),
      fcParams('test/generated/decks-model.test.ts', runs),
    );
  }, 600_000);
});
