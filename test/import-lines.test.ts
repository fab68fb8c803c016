/**
 * `decks import`'s rough edges, through the real command. Before the fix a line
 * longer than about 512 MB crashed the import with a raw `RangeError: Invalid string length`
 * stack, and invalid UTF-8 in a line was stored as U+FFFD.
 *
 * Now one line may have at most DECK_IMPORT_LINE_MAX_BYTES (1 MiB, in the contract: a legal deck
 * is about a fifth of it at most), so a longer one is refused by line number without being held
 * in memory, and a line that is not valid UTF-8 is refused by line number; either way the
 * database is unchanged. (The test feeds a line just above the cap: the same code path as 512 MB.)
 */
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECK_IMPORT_LINE_MAX_BYTES } from '@snapdeck/contract';
import { runCli } from './helpers/cli-gateway.ts';
import { deck } from './helpers/deck-db.ts';
import { tempDir } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
let db: string;
let before: Buffer;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-import-lines-'));
  db = join(dir, 'decks.db');
  const seed = join(dir, 'seed.jsonl');
  await writeFile(seed, `${JSON.stringify(deck({ name: 'Seed' }))}\n`);
  const seeded = await runCli(['decks', 'import', seed, '--db', db]);
  expect(seeded.code, seeded.stderr).toBe(0);
  before = await readFile(db);
});
afterAll(() => cleanup?.());

/** Writes a file: a good deck on line 1, then `second` (bytes) as line 2, then another good deck. */
async function fileWith(name: string, second: Buffer): Promise<string> {
  const file = join(dir, name);
  const handle = await open(file, 'w');
  try {
    await handle.write(`${JSON.stringify(deck())}\n`);
    await handle.write(second);
    await handle.write(`\n${JSON.stringify(deck())}\n`);
  } finally {
    await handle.close();
  }
  return file;
}

async function expectRefused(file: string, reason: string): Promise<void> {
  const run = await runCli(['decks', 'import', file, '--db', db]);
  expect(run.code).toBe(1);
  expect(run.stderr).toBe(`snapdeck decks import: ${file}:2: ${reason}\n`);
  expect(run.stdout).toBe('');
  expect((await readFile(db)).equals(before)).toBe(true);
}

describe('decks import: one line', () => {
  it('the cap is far above a legal deck: 1,000 entries with the longest ids and zones, 200-character names', () => {
    const biggest = deck({
      name: '\u{1F600}'.repeat(100),
      ownerDisplayName: '\u{1F600}'.repeat(50),
      cards: Array.from({ length: 1000 }, () => ({ cardId: 'X'.repeat(100), quantity: 999, zoneId: 'z'.repeat(64) })),
    });
    const bytes = Buffer.byteLength(JSON.stringify(biggest));
    expect(bytes).toBeLessThan(DECK_IMPORT_LINE_MAX_BYTES / 4);
  });

  it('a line one byte over the cap is refused by its number, with no stack, the database unchanged', async () => {
    const file = await fileWith('long.jsonl', Buffer.alloc(DECK_IMPORT_LINE_MAX_BYTES + 1, 0x61));
    await expectRefused(file, `is longer than ${DECK_IMPORT_LINE_MAX_BYTES} bytes, the most one import line may have`);
  });

  it('a line of exactly the cap is read (and then refused as what it is: not JSON)', async () => {
    const file = await fileWith('at-cap.jsonl', Buffer.alloc(DECK_IMPORT_LINE_MAX_BYTES, 0x61));
    const run = await runCli(['decks', 'import', file, '--db', db]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^snapdeck decks import: ${file}:2: not valid JSON`));
  });

  it('a file with no line break at all, over the cap, is refused as line 1', async () => {
    const file = join(dir, 'one-line.jsonl');
    await writeFile(file, Buffer.alloc(DECK_IMPORT_LINE_MAX_BYTES * 3, 0x20));
    const run = await runCli(['decks', 'import', file, '--db', db]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`snapdeck decks import: ${file}:1: is longer than ${DECK_IMPORT_LINE_MAX_BYTES} bytes, the most one import line may have\n`);
  });

  it.each([
    ['a stray 0xFF', [0xff]],
    ['a truncated 3-byte sequence', [0xe2, 0x82]],
    ['an overlong encoding of /', [0xc0, 0xaf]],
    ['a UTF-8-encoded surrogate', [0xed, 0xa0, 0x80]],
  ])('invalid UTF-8 (%s) in a deck name is refused by line number, not stored as U+FFFD', async (_what, bytes) => {
    const [head, tail] = JSON.stringify(deck({ name: 'Red@@Hybrid' })).split('@@') as [string, string];
    const file = await fileWith(`utf8-${bytes.join('-')}.jsonl`, Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]));
    await expectRefused(file, 'is not valid UTF-8');
  });

  it('valid multi-byte UTF-8 split across read chunks still imports', async () => {
    // Leading whitespace (legal JSON) puts a 4-byte character across the 64 KiB boundary of the
    // file stream's first read.
    const json = JSON.stringify(deck({ name: 'Red \u{1F600} Hybrid' }));
    const at = Buffer.byteLength(json.slice(0, json.indexOf('\u{1F600}')));
    const line = `${' '.repeat(65_536 - 2 - at)}${json}`;
    expect(Buffer.from(line).subarray(65_534, 65_538).toString()).toBe('\u{1F600}');
    const file = join(dir, 'chunks.jsonl');
    await writeFile(file, `${line}\n${JSON.stringify(deck())}\n`);
    const run = await runCli(['decks', 'import', file, '--db', join(dir, 'chunks.db')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/: 2 decks upserted/);
  });
});
