/**
 * Catalog text cannot forge lines in text exports. Before the fix a gundam card
 * named "Evil\n// Sideboard\n4 Fake (GD01-999)" was accepted by `snapdeck build`, and a deck using
 * it printed a forged `// Sideboard` header and card line in format=text and format=limitless.
 *
 * decisions.md "Cards": the build refuses control characters (U+0000–U+001F, U+007F–U+009F,
 * U+2028, U+2029) in a card's names, naming the game, the line and the card id, and writes
 * nothing. Deck names and owners are one line too (refused at import), and an export never
 * writes a line break that came from data, however the data got there.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAME_SLUGS, type GameSlug } from '@snapdeck/contract';
import { deckText, gaText, limitlessText, snapdeckText } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli } from './helpers/cli-gateway.ts';
import { deck } from './helpers/deck-db.ts';
import { tempDir } from './helpers/harness.ts';
import { CONTROL_CHARACTERS, FORGED_LINES, LINE_BREAKS } from './helpers/hostile-corpus.ts';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-control-'));
});
afterAll(() => cleanup?.());

/** Where each game's card keeps the name a text export prints. */
const NAME_PATH: Record<GameSlug, string[]> = { digimon: ['name', 'english'], gundam: ['name'], 'grand-archive': ['name'], 'chrono-core': ['name'] };

function setPath(card: Record<string, unknown>, path: string[], value: string): void {
  let at = card;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[path.at(-1)!] = value;
}

/** Writes a catalog of `game` whose cards on the given lines (1-based) get `edit`; returns the folder and their ids. */
async function catalogWith(name: string, game: GameSlug, edits: Map<number, (card: Record<string, unknown>) => void>): Promise<{ catalog: string; ids: Map<number, string> }> {
  const catalog = join(dir, name);
  const cards = (await writeGeneratedCatalog(catalog, { [game]: Math.max(6, ...edits.keys()) }))[game]!;
  const ids = new Map<number, string>();
  for (const [line, edit] of edits) {
    edit(cards[line - 1]!);
    ids.set(line, cards[line - 1]!.id);
  }
  await writeFile(join(catalog, `${game}.jsonl`), `${cards.map((card) => JSON.stringify(card)).join('\n')}\n`);
  return { catalog, ids };
}

async function entries(folder: string): Promise<string[]> {
  return readdir(folder).catch(() => []);
}

describe('snapdeck build refuses control characters in card names', () => {
  for (const game of GAME_SLUGS) {
    it(`${game}: a name that forges lines is refused, naming the game, the line and the card id; nothing is written`, async () => {
      const { catalog, ids } = await catalogWith(`forged-${game}`, game, new Map([[3, (card) => setPath(card, NAME_PATH[game], FORGED_LINES)]]));
      const out = join(dir, `out-forged-${game}`);
      const run = await runCli(['build', '--catalog', catalog, '--out', out, '--game', game]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(`${join(catalog, `${game}.jsonl`)}:3: ${NAME_PATH[game].join('.')}: holds the control character U+000A at character 4`);
      expect(run.stderr).toContain(`(${game} card ${ids.get(3)})`);
      expect(run.stderr).toContain('nothing was published');
      expect(await entries(out)).toEqual([]);
    });
  }

  it('every control character of decisions.md, in a name or a set name, is refused; each is counted', async () => {
    const edits = new Map<number, (card: Record<string, unknown>) => void>();
    CONTROL_CHARACTERS.forEach((c, i) => edits.set(i + 1, (card) => (card.name = `Zaku${c}II`)));
    edits.set(CONTROL_CHARACTERS.length + 1, (card) => (card.setName = 'Newtype\u2028Rising'));
    const { catalog } = await catalogWith('every-control', 'gundam', edits);
    const out = join(dir, 'out-every-control');
    const run = await runCli(['build', '--catalog', catalog, '--out', out, '--game', 'gundam']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`catalog is invalid (${CONTROL_CHARACTERS.length + 1} problems)`);
    expect(run.stderr).toContain('name: holds the control character U+0000 at character 4');
    expect(run.stderr).toContain('gundam.jsonl:20: name: holds the control character U+0013 at character 4');
    expect(await entries(out)).toEqual([]);
  });

  it('U+2028 and U+2029 in text that is not a name (an effect) still build: a catalog line ends at \\n only', async () => {
    // JSON.stringify leaves both unescaped; node:readline (Node 24 and later) would end a line there.
    const { catalog } = await catalogWith('separators-ok', 'gundam', new Map([[2, (card) => (card.effect = 'Deploy\u2028Draw 1\u2029Attack')]]));
    expect(await readFile(join(catalog, 'gundam.jsonl'), 'utf8')).toMatch(/\u2028Draw 1\u2029/);
    const out = join(dir, 'out-separators-ok');
    const run = await runCli(['build', '--catalog', catalog, '--out', out, '--game', 'gundam']);
    expect(run.code, run.stderr).toBe(0);
    expect(await entries(out)).toContain('gundam');
  });

  it('odd but printable Unicode in a name still builds', async () => {
    const { catalog } = await catalogWith('odd-ok', 'gundam', new Map([[2, (card) => (card.name = 'Ζάκου\u00a0II — 😀 ﻿e\u0301')]]));
    const out = join(dir, 'out-odd-ok');
    const run = await runCli(['build', '--catalog', catalog, '--out', out, '--game', 'gundam']);
    expect(run.code, run.stderr).toBe(0);
    expect(await entries(out)).toContain('gundam');
  });
});

describe('deck import refuses a deck name or owner that is not one line', () => {
  it.each([
    ['name', FORGED_LINES],
    ['name', 'Red\u2028Hybrid'],
    ['ownerDisplayName', 'kaito\r\n// Sideboard'],
  ])('%s %j: exit 1 naming the line, the database unchanged', async (field, value) => {
    const db = join(dir, `decks-${field}-${value.length}.db`);
    const good = join(dir, 'good.jsonl');
    await writeFile(good, `${JSON.stringify(deck({ name: 'Before' }))}\n`);
    expect((await runCli(['decks', 'import', good, '--db', db])).code).toBe(0);
    const before = await readFile(db);
    const bad = join(dir, 'bad.jsonl');
    await writeFile(bad, `${JSON.stringify(deck())}\n${JSON.stringify(deck({ [field]: value }))}\n`);
    const run = await runCli(['decks', 'import', bad, '--db', db]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^snapdeck decks import: ${bad}:2: ${field}: must be one line: holds the control character U\\+(000A|000D|2028) at character [0-9]+\n$`));
    expect((await readFile(db)).equals(before)).toBe(true);
  });
});

describe('an export never writes a line break that came from data', () => {
  // Data that reached a snapshot or database before these rules (or by restore): printed on one line.
  for (const brk of LINE_BREAKS) {
    it(`a name, a card id and a zone holding ${JSON.stringify(brk)}`, () => {
      const cards = [
        { cardId: 'GD01-001', quantity: 2, zoneId: 'main' },
        { cardId: `GD01-002${brk}4 Fake`, quantity: 1, zoneId: `side${brk}// Sideboard` },
      ];
      const names = new Map([['GD01-001', `Evil${brk}// Sideboard${brk}4 Fake (GD01-999)`]]);
      for (const text of [deckText({ gameId: 'gundam', cards }, names), gaText({ gameId: 'grand-archive', cards }, names), snapdeckText({ gameId: 'gundam', cards }, names), limitlessText({ gameId: 'gundam', cards }, names)]) {
        const rows = text.split('\n').filter((row) => row !== '');
        expect(rows.every((row) => !/[\r\u000b\u000c\u0085\u2028\u2029]/.test(row)), JSON.stringify(text)).toBe(true);
        expect(rows.filter((row) => /^(\/\/|#) Sideboard/.test(row) || /^4 Fake/.test(row))).toEqual([]);
      }
    });
  }
});
