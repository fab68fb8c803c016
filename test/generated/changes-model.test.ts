/**
 * Model-based tests of card changes (decisions.md "Card changes"): random sequences of
 * builds (cards added, edited, removed; unchanged rebuilds), gc runs and syncs from random
 * checkpoints, against a model of every version's cards.
 *
 * 1. Records (SNAPDECK_CASES × 0.1 sequences: 10,000 under `npm run test:deep`): each build goes
 *    through the snapshot package's own steps of a publish that concern changes (card hashes, the
 *    base's hashes read back from a real folder, the change record written there), one version a
 *    day; gc runs `collectChangeRecords` at a random day with a random --keep-changes-days. Checks:
 *    each record is exactly the model's diff; a sync from any checkpoint either gets the net change
 *    (each card once, by id) and, applied to the partner's copy, ends equal to the current version,
 *    or is refused (410) exactly when a record it needs was collected, and then a walk does it.
 * 2. End to end (a few sequences; SNAPDECK_CASES × 0.0001 under test:deep): real builds of
 *    a generated catalog served by a gateway, and `@snapdeck/client` syncCards from random
 *    checkpoints (earlier syncs' or none): every sync ends with a copy equal to a full walk.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapdeckClient, type CardCheckpoint } from '@snapdeck/client';
import { startGateway } from '@snapdeck/gateway';
import {
  CARD_HASHES_FILE, FsDriver, cardHashes, chainBetween, changeRecordKey, changeRecordSchema, collectChangeRecords, encodeCardHashes,
  layout, netChanges, newVersionId, recordChanges, type CatalogEntry, type ChangeRecord,
} from '@snapdeck/snapshot';
import { casesFor, fcParams } from '../helpers/cases.ts';
import { buildCards, renamed, walkAll, type Card } from '../helpers/card-changes.ts';
import { writeGeneratedCatalog } from '../helpers/catalog.ts';
import { getJson, startTestGateway, tempDir, waitFor } from '../helpers/harness.ts';

const GAME = 'gundam';
const IDS = Array.from({ length: 12 }, (_, i) => `GD01-${String(i + 1).padStart(3, '0')}`);
const DAY = 86_400_000;
const START = Date.parse('2026-01-01T00:00:00Z');

let dir: string;
let cleanup: () => Promise<void>;
let runs = 0;
let storage: FsDriver;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-changes-model-'));
  storage = new FsDriver(join(dir, 'records'));
});

afterAll(async () => {
  await cleanup?.();
});

type Step =
  | { kind: 'build'; edits: Array<{ id: number; op: 'put' | 'remove' }> }
  | { kind: 'sync'; from: number }
  | { kind: 'gc'; day: number; keepDays: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.record({ id: fc.nat({ max: IDS.length - 1 }), op: fc.constantFrom('put' as const, 'remove' as const) }), { maxLength: 5 }).map((edits) => ({ kind: 'build' as const, edits })) },
  { weight: 2, arbitrary: fc.nat().map((from) => ({ kind: 'sync' as const, from })) },
  { weight: 1, arbitrary: fc.record({ day: fc.nat({ max: 12 }), keepDays: fc.nat({ max: 6 }) }).map((g) => ({ kind: 'gc' as const, ...g })) },
);

const entriesOf = (cards: Map<string, number>): CatalogEntry[] =>
  [...cards.keys()].sort().map((id) => {
    const body = Buffer.from(JSON.stringify({ id, revision: cards.get(id) }));
    return { id, card: body, hit: body };
  });

describe('card change records against a model of builds, gc and syncs', () => {
  it('every sync from a kept checkpoint ends equal to the current version; 410 exactly when a needed record was collected', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        // One folder for every sequence, a game name of its own for each (no folder made or removed per case).
        const game = `model-${runs++}`;
        // Model: each version's cards (id → revision), in build order; which records were collected.
        const versions: Array<{ version: string; cards: Map<string, number> }> = [];
        const collected = new Set<string>();
        let revision = 0;
        const publish = async (cards: Map<string, number>) => {
          const base = versions.at(-1) ?? null;
          const version = newVersionId(new Date(START + versions.length * DAY), (versions.length + 1).toString(16).padStart(6, '0'));
          const hashes = await cardHashes(entriesOf(cards));
          await storage.put(layout.file(game, version, CARD_HASHES_FILE), encodeCardHashes(hashes));
          const record = await recordChanges(storage, game, version, base?.version ?? null, hashes);
          const before = base?.cards ?? new Map<string, number>();
          expect(record.from).toBe(base?.version ?? null);
          if (base) {
            expect(record.added).toEqual(IDS.filter((id) => cards.has(id) && !before.has(id)));
            expect(record.removed).toEqual(IDS.filter((id) => !cards.has(id) && before.has(id)));
            expect(record.changed).toEqual(IDS.filter((id) => cards.has(id) && before.has(id) && cards.get(id) !== before.get(id)));
          }
          versions.push({ version, cards });
        };
        await publish(new Map(IDS.slice(0, 6).map((id) => [id, revision++])));
        {
          for (const s of steps) {
            const current = versions.at(-1)!;
            if (s.kind === 'build') {
              const cards = new Map(current.cards);
              for (const edit of s.edits) (edit.op === 'put' ? cards.set(IDS[edit.id]!, revision++) : cards.delete(IDS[edit.id]!));
              // An unchanged catalog publishes nothing (its build hash is the current one's).
              if (entriesOf(cards).map((e) => e.card.toString()).join() !== entriesOf(current.cards).map((e) => e.card.toString()).join()) await publish(cards);
            } else if (s.kind === 'gc') {
              const now = START + s.day * DAY;
              await collectChangeRecords(storage, game, current.version, s.keepDays, now, false);
              for (const v of versions) {
                if (v.version !== current.version && now - (START + versions.indexOf(v) * DAY) > s.keepDays * DAY) collected.add(v.version);
              }
            } else {
              const at = s.from % versions.length;
              const since = versions[at]!;
              const load = async (version: string): Promise<ChangeRecord | null> => {
                const object = await storage.get(changeRecordKey(game, version));
                return object ? changeRecordSchema.parse(JSON.parse(Buffer.from(object.body).toString())) : null;
              };
              const chain = await chainBetween(since.version, current.version, load);
              const needed = versions.slice(at + 1).map((v) => v.version);
              expect(chain === null, `since ${at} of ${versions.length}: gone iff a needed record was collected`).toBe(needed.some((v) => collected.has(v)));
              const copy = new Map(since.cards);
              if (chain === null) {
                copy.clear(); // the walk: every card of the current version
                for (const [id, rev] of current.cards) copy.set(id, rev);
              } else {
                const net = netChanges(chain);
                expect(net.ids, 'each card once, by id').toEqual([...new Set(net.ids)].sort());
                net.ids.forEach((id, i) => (net.upsert[i] ? copy.set(id, current.cards.get(id)!) : copy.delete(id)));
                // Nothing superfluous: a card in neither version is never mentioned.
                for (const id of net.ids) expect(since.cards.has(id) || current.cards.has(id), id).toBe(true);
              }
              expect(copy).toEqual(current.cards);
            }
          }
        }
      }),
      fcParams('test/generated/changes-model.test.ts', casesFor(0.1, 10)),
    );
  }, 1_800_000);

  it('end to end: syncCards from random checkpoints across real builds ends equal to a full walk', async () => {
    const pool = (await writeGeneratedCatalog(join(dir, 'pool'), { gundam: 40 }))[GAME] as Card[];
    const keys = await startTestGateway({ snapshots: join(dir, 'none'), db: join(dir, 'keys.db') });
    const key = keys.createKey({ quota: 100_000_000 });
    await keys.close();
    const build = fc.array(fc.record({ id: fc.nat({ max: pool.length - 1 }), op: fc.constantFrom('edit', 'remove', 'add') }), { maxLength: 4 });
    const sequence = fc.array(fc.tuple(build, fc.nat()), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(sequence, async (nights) => {
        const folder = join(dir, `e2e-${runs++}`);
        const snapshots = join(folder, 'snapshots');
        const catalogDir = join(folder, 'catalog');
        await writeGeneratedCatalog(catalogDir, { digimon: 1, 'grand-archive': 1, 'chrono-core': 1 });
        for (const game of ['digimon', 'grand-archive', 'chrono-core'] as const) {
          await buildCards(catalogDir, snapshots, game, (await writeGeneratedCatalog(join(folder, 'other'), { [game]: 1 }))[game] as Card[]);
        }
        let cards = pool.slice(0, 20);
        await buildCards(catalogDir, snapshots, GAME, cards);
        const gateway = await startGateway({ port: 0, host: '127.0.0.1', snapshots, db: join(dir, 'keys.db'), pointerTtlMs: 0, log: pino({ level: 'silent' }) });
        try {
          const client = new SnapdeckClient({ baseUrl: `${gateway.url}/v1`, apiKey: key });
          const checkpoints: Array<{ checkpoint: CardCheckpoint | null; copy: Map<string, unknown> }> = [{ checkpoint: null, copy: new Map() }];
          for (const [edits, pick] of nights) {
            for (const edit of edits) {
              const card = pool[edit.id]!;
              if (edit.op === 'remove') cards = cards.filter((c) => c.id !== card.id);
              else if (edit.op === 'add' && !cards.some((c) => c.id === card.id)) cards = [...cards, card];
              else cards = cards.map((c) => (c.id === card.id ? renamed(c, `${c.name}′`) : c));
            }
            const result = await buildCards(catalogDir, snapshots, GAME, cards);
            await waitFor(async () => (await getJson(`${gateway.url}/readyz`)).body?.versions?.[GAME] === result.version, 10_000);
            const from = checkpoints[pick % checkpoints.length]!;
            const copy = new Map(from.copy);
            const sync = client.syncCards(GAME, { checkpoint: from.checkpoint });
            for await (const event of sync) {
              if (event.type === 'reset') copy.clear();
              if (event.type === 'upsert') copy.set(event.hit.id, event.hit);
              if (event.type === 'delete') copy.delete(event.cardId);
            }
            expect(sync.checkpoint!.version).toBe(result.version);
            expect(copy).toEqual((await walkAll(`${gateway.url}/v1`, GAME, { 'X-API-Key': key })).hits);
            checkpoints.push({ checkpoint: sync.checkpoint, copy });
          }
        } finally {
          await gateway.close();
        }
      }),
      fcParams('test/generated/changes-model.test.ts', casesFor(0.0001, 3)),
    );
  }, 1_800_000);
});
