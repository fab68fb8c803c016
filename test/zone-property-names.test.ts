/**
 * A zone id that is a property name of Object.prototype (`constructor`,
 * `__proto__`, `toString`, …) is an ordinary zone. Before the fix a grand-archive deck with the
 * zone `constructor` answered 500 in format=ga-tts (`zones[zoneId].push is not a function`) and a
 * gundam deck printed `// function Object() { [native code] }` in format=text.
 *
 * Every such name, in every game, exported in every format, on a `--db` gateway and on a `--store`
 * gateway (real `snapdeck serve` processes): 200 (or the documented 400 for ga-tts on a deck that is
 * not grand-archive), headers labelled as decisions.md says ("any other zone: its id with each
 * dash-separated word capitalised").
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_MODELS, ERRORS, GAME_SLUGS, GAME_ZONES, type GameSlug } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli, startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { deck } from './helpers/deck-db.ts';
import { tempDir } from './helpers/harness.ts';
import { PROPERTY_NAMES } from './helpers/hostile-corpus.ts';

/** Games whose stored zones are kept even when the game does not know them (decisions.md "Zones"). */
const KEEPS_ZONE = new Set<GameSlug>(['gundam', 'grand-archive']);

/** decisions.md's zone label, written out again here so the test does not read the code it checks. */
function expectedLabel(zoneId: string): string {
  return zoneId
    .split('-')
    .map((word) => (word === '' ? word : word.charAt(0).toUpperCase() + word.slice(1)))
    .join('-');
}

interface Case {
  game: GameSlug;
  zone: string;
  deckId: string;
  main: { id: string; name: string };
  other: { id: string; name: string };
}

let dir: string;
let cleanup: () => Promise<void>;
let key: string;
const cases: Case[] = [];
const gateways: Array<{ kind: string; gateway: CliGateway }> = [];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-zone-names-'));
  const catalogDir = join(dir, 'catalog');
  const snapshots = join(dir, 'snapshots');
  const catalogs = await writeGeneratedCatalog(catalogDir, { digimon: 6, gundam: 6, 'grand-archive': 6, 'chrono-core': 6 });
  await build({ catalogDir, storage: new FsDriver(snapshots), hitsPerPage: [100] });
  const writerDb = join(dir, 'writer.db');
  const created = await runCli(['keys', 'create', '--name', 'zones', '--db', writerDb]);
  expect(created.code, created.stderr).toBe(0);
  key = created.stdout.trim();

  // The import grammar takes `constructor` (a lowercase word), so that one goes in through
  // the import itself. It refuses the others (capitals, underscores), but a database can still hold
  // them (`store restore` of a store published elsewhere, a database from before the grammar):
  // they are imported under a placeholder zone and then written into the SQLite file as they are.
  const placeholders = new Map<string, string>();
  const lines: string[] = [];
  for (const game of GAME_SLUGS) {
    const cards = catalogs[game]!;
    const named = (i: number) => ({ id: cards[i]!.id, name: CARD_MODELS[game].nameOf(cards[i] as never) });
    PROPERTY_NAMES.forEach((zone, i) => {
      const stored = zone === 'constructor' ? zone : `placeholder-${i}`;
      if (stored !== zone) placeholders.set(stored, zone);
      const line = deck({ gameId: game, visibility: 'public', cards: [{ cardId: named(0).id, quantity: 2, zoneId: 'main' }, { cardId: named(1 + (i % 5)).id, quantity: 1, zoneId: stored }] });
      lines.push(JSON.stringify(line));
      cases.push({ game, zone, deckId: line.id, main: named(0), other: named(1 + (i % 5)) });
    });
  }
  const file = join(dir, 'decks.jsonl');
  await writeFile(file, `${lines.join('\n')}\n`);
  const imported = await runCli(['decks', 'import', file, '--db', writerDb]);
  expect(imported.code, imported.stderr).toBe(0);
  const db = openDatabase(writerDb);
  try {
    const rename = db.prepare('UPDATE deck_cards SET zone_id = ? WHERE zone_id = ?');
    for (const [stored, zone] of placeholders) expect(rename.run(zone, stored).changes).toBe(GAME_SLUGS.length);
  } finally {
    db.close();
  }
  const store = join(dir, 'store');
  const published = await runCli(['store', 'publish', '--to', store, '--db', writerDb]);
  expect(published.code, published.stderr).toBe(0);

  const [onDb, onStore] = await Promise.all([
    startCliGateway(['--snapshots', snapshots, '--db', writerDb]),
    startCliGateway(['--snapshots', snapshots, '--store', store, '--cache-dir', join(dir, 'cache')]),
  ]);
  gateways.push({ kind: '--db', gateway: onDb }, { kind: '--store', gateway: onStore });
});

afterAll(async () => {
  await Promise.all(gateways.map(({ gateway }) => gateway.stop()));
  await cleanup?.();
});

async function get(base: string, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key } });
  return { status: response.status, text: await response.text() };
}

describe('zone ids that are property names of Object.prototype', () => {
  it('covers every property name, __proto__ included', () => {
    expect(PROPERTY_NAMES).toContain('__proto__');
    expect(PROPERTY_NAMES).toContain('constructor');
    expect(cases).toHaveLength(PROPERTY_NAMES.length * GAME_SLUGS.length);
  });

  for (const kind of ['--db', '--store']) {
    it(`every game, every format, on a ${kind} gateway: 200 and decisions.md's labels`, async () => {
      const { gateway } = gateways.find((g) => g.kind === kind)!;
      const failures: string[] = [];
      const check = (c: Case, what: string, ok: boolean, got: unknown) => {
        if (!ok) failures.push(`${c.game} zone ${JSON.stringify(c.zone)} ${what}: ${JSON.stringify(got).slice(0, 300)}`);
      };
      for (const c of cases) {
        const path = `/v1/decks/${c.deckId}`;
        const kept = KEEPS_ZONE.has(c.game);
        const json = await get(gateway.url, path);
        check(c, 'json status', json.status === 200, json);
        if (json.status === 200) {
          const zones = (JSON.parse(json.text).data.cards as Array<{ zoneId: string }>).map((card) => card.zoneId);
          // digimon and chrono-core resolve a zone they do not know from the catalog (decisions.md).
          check(c, 'json zones', zones[0] === 'main' && (kept ? zones[1] === c.zone : (GAME_ZONES[c.game] as readonly string[]).includes(zones[1]!)), zones);
        }

        const text = await get(gateway.url, `${path}?format=text`);
        check(c, 'text status', text.status === 200, text);
        if (c.game === 'grand-archive') {
          const expected = `# Main Deck\n2 ${c.main.name}\n\n# ${expectedLabel(c.zone)}\n1 ${c.other.name}\n`;
          check(c, 'text', text.text === expected, text.text);
        } else if (kept) {
          const expected = `// Main Deck\n2 ${c.main.name} (${c.main.id})\n// ${expectedLabel(c.zone)}\n1 ${c.other.name} (${c.other.id})\n`;
          check(c, 'text', text.text === expected, text.text);
        } else {
          check(c, 'text', text.text.includes(`2 ${c.main.name} (${c.main.id})\n`) && text.text.includes(`1 ${c.other.name} (${c.other.id})\n`), text.text);
        }
        check(c, 'text has no native code', !/native code|\[object|function /.test(text.text), text.text);

        const tts = await get(gateway.url, `${path}?format=ga-tts`);
        if (c.game === 'grand-archive') {
          check(c, 'ga-tts status', tts.status === 200, tts);
          if (tts.status === 200) {
            const zones = JSON.parse(tts.text).data.zones as Record<string, Array<{ cardId: string }>>;
            check(c, 'ga-tts zones', Object.hasOwn(zones, c.zone) && zones[c.zone]!.map((e) => e.cardId).join() === c.other.id, Object.keys(zones));
            check(c, 'ga-tts main', zones.main!.map((e) => e.cardId).join() === c.main.id, zones.main);
          }
        } else {
          check(c, 'ga-tts refusal', tts.status === 400 && JSON.parse(tts.text).error === ERRORS.gaTtsOnly, tts);
        }

        const abbreviation = { digimon: 'DCG', gundam: 'GUN', 'grand-archive': 'GA', 'chrono-core': 'CC' }[c.game];
        const snapdeck = await get(gateway.url, `${path}/text?format=snapdeck`);
        check(c, 'snapdeck', snapdeck.status === 200 && snapdeck.text.split('\n').length === 3 && snapdeck.text.includes(`1 ${c.other.name} (${abbreviation}) (${c.other.id})\n`), snapdeck);
        const limitless = await get(gateway.url, `${path}/text?format=limitless`);
        check(c, 'limitless', limitless.status === 200 && limitless.text.split('\n').length === 3 && limitless.text.includes(`1 ${c.other.name} ${c.other.id}\n`), limitless);
      }
      expect(failures).toEqual([]);
    });
  }
});
