import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeckStore, openDatabase } from '@snapdeck/store';
import { runCli } from '../program.ts';

let dir: string;
let dbFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'snapdeck-cli-'));
  dbFile = join(dir, 'snapdeck.db');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI in-process; returns what it printed and its exit code. */
async function run(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  let out = '';
  let err = '';
  // The real entry point's program and failure reporting (main.ts runs the same), output captured.
  const code = await runCli(args, { from: 'user', output: { out: (s) => void (out += s), err: (s) => void (err += s) } });
  return { out, err, code };
}

const DECK_ID = '3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b';
const deckLine = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    gameId: 'gundam',
    name: 'Zeon Rush',
    ownerDisplayName: 'char',
    visibility: 'private',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-02T00:00:00Z',
    cards: [{ cardId: 'GD01-039', quantity: 4 }],
    ...extra,
  });

function countDecks(): number {
  const db = openDatabase(dbFile);
  try {
    return db.prepare('SELECT COUNT(*) FROM decks').pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('snapdeck decks import', () => {
  it('imports and prints a summary', async () => {
    const file = join(dir, 'decks.jsonl');
    writeFileSync(file, `${deckLine(DECK_ID)}\n${deckLine('9b2d4c6e-8f10-4a12-b456-7890abcdef12')}\n{"id": "0e4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d", "deleted": true}\n`);
    const result = await run('decks', 'import', file, '--db', dbFile);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 2 decks upserted, 0 deleted \\(1 not found\\) in \\d+\\.\\d\\d s\\n$`));
    expect(countDecks()).toBe(2);
  });

  it('prints FILE:LINE: reason on a bad line, exits 1 and changes nothing', async () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${deckLine(DECK_ID)}\n\n${deckLine('9b2d4c6e-8f10-4a12-b456-7890abcdef12', { visibility: 'friends' })}\n`);
    const result = await run('decks', 'import', file, '--db', dbFile);
    // decks import creates a missing database and says so (decisions.md), before it reads the file.
    expect(result).toEqual({ out: '', err: `creating a new database at ${dbFile}\nsnapdeck decks import: ${file}:3: visibility: must be public or private\n`, code: 1 });
    // The database it created for the import is not left behind, empty.
    expect(existsSync(dbFile)).toBe(false);
    // An existing database is left as it was.
    writeFileSync(join(dir, 'good.jsonl'), `${deckLine(DECK_ID)}\n`);
    expect((await run('decks', 'import', join(dir, 'good.jsonl'), '--db', dbFile)).code).toBe(0);
    expect((await run('decks', 'import', file, '--db', dbFile)).code).toBe(1);
    expect(countDecks()).toBe(1);
  });

  it('--keep-deck-changes-days prunes older removals from the deck change feed, says so on stderr, and refuses a bad value', async () => {
    const file = join(dir, 'decks.jsonl');
    writeFileSync(file, `${deckLine(DECK_ID, { visibility: 'public' })}\n`);
    expect((await run('decks', 'import', file, '--db', dbFile)).code).toBe(0);
    writeFileSync(file, `{"id": "${DECK_ID}", "deleted": true}\n`);
    const kept = await run('decks', 'import', file, '--db', dbFile);
    expect([kept.code, kept.err]).toEqual([0, '']);
    const removals = () => {
      const db = openDatabase(dbFile);
      try {
        return db.prepare('SELECT COUNT(*) FROM deck_removals').pluck().get() as number;
      } finally {
        db.close();
      }
    };
    expect(removals()).toBe(1);
    // Removals are stamped to the second: one more second and a keep of 0 days takes it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    writeFileSync(file, '\n');
    const pruned = await run('decks', 'import', file, '--db', dbFile, '--keep-deck-changes-days', '0');
    expect([pruned.code, pruned.err]).toEqual([0, 'pruned 1 deck removal(s) older than 0 day(s) from the deck change feed\n']);
    expect(removals()).toBe(0);
    for (const value of ['-1', '1.5', 'abc']) {
      const bad = await run('decks', 'import', file, '--db', dbFile, '--keep-deck-changes-days', value);
      expect(bad.code).toBe(1);
      expect(bad.err).toContain('--keep-deck-changes-days');
    }
  });

  it('reports a missing file, and keeps no database it created', async () => {
    const result = await run('decks', 'import', join(dir, 'nope.jsonl'), '--db', dbFile);
    expect(result.code).toBe(1);
    expect(result.err).toContain('cannot read the file (ENOENT)');
    expect(existsSync(dbFile)).toBe(false);
  });
});

describe('snapdeck tokens', () => {
  beforeEach(async () => {
    const file = join(dir, 'decks.jsonl');
    writeFileSync(file, `${deckLine(DECK_ID)}\n`);
    await run('decks', 'import', file, '--db', dbFile);
  });

  function resolves(token: string, now?: number): boolean {
    const db = openDatabase(dbFile);
    try {
      return new DeckStore(db).resolveToken(DECK_ID, token, now);
    } finally {
      db.close();
    }
  }

  it('share prints a token alone on stdout, valid 24 hours by default', async () => {
    const result = await run('tokens', 'share', DECK_ID, '--db', dbFile);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^st_[0-9a-f]{32}\n$/);
    const token = result.out.trim();
    expect(resolves(token)).toBe(true);
    expect(resolves(token, Date.now() + 86_400_000 - 60_000)).toBe(true);
    expect(resolves(token, Date.now() + 86_400_000 + 60_000)).toBe(false);
  });

  it('share --ttl issues a shorter token and refuses more than 24 hours', async () => {
    const token = (await run('tokens', 'share', DECK_ID, '--ttl', '60', '--db', dbFile)).out.trim();
    expect(resolves(token, Date.now() + 120_000)).toBe(false);
    for (const ttl of ['86401', '0', '1.5', 'abc']) {
      const result = await run('tokens', 'share', DECK_ID, '--ttl', ttl, '--db', dbFile);
      expect(result.code).toBe(1);
      expect(result.err).toContain('--ttl');
    }
  });

  it('private prints a pd_ link', async () => {
    const result = await run('tokens', 'private', DECK_ID.toUpperCase(), '--db', dbFile);
    expect(result.out).toMatch(/^pd_[0-9a-f]{32}\n$/);
    expect(resolves(result.out.trim(), Date.now() + 10 * 365 * 86_400_000)).toBe(true);
  });

  it('an unknown or malformed deck id is a clear error with exit code 1', async () => {
    const unknown = await run('tokens', 'share', '9b2d4c6e-8f10-4a12-b456-7890abcdef12', '--db', dbFile);
    expect(unknown).toEqual({ out: '', err: `snapdeck tokens share: no deck with id 9b2d4c6e-8f10-4a12-b456-7890abcdef12 in ${dbFile}\n`, code: 1 });
    const malformed = await run('tokens', 'private', 'deck-1', '--db', dbFile);
    expect(malformed.code).toBe(1);
    expect(malformed.err).toContain('a deck id is a UUID v4');
  });

  it('has help with examples', async () => {
    const result = await run('tokens', 'share', '--help');
    expect(result.out).toContain('Examples:');
    expect(result.out).toContain('--ttl <seconds>');
  });
});
