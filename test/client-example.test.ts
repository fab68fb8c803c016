/**
 * The partners' mirroring example (packages/client/examples/mirror-jsonl.ts, shown verbatim in
 * docs/partners/syncing-decks.md): under 40 lines, and it really mirrors a game's catalog and decks
 * into JSONL, incrementally, against a real gateway.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { BOTH_SCOPES, idGenerator, importLines, iso, type DeckLine } from './helpers/decks.ts';
import { startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';

const ROOT = join(import.meta.dirname, '..');
const EXAMPLE = join(ROOT, 'packages', 'client', 'examples', 'mirror-jsonl.ts');
/** The page that shows the example. */
const PAGE = join(ROOT, 'docs', 'partners', 'syncing-decks.md');
const GAME = 'gundam';

let dir: string;
let cleanup: () => Promise<void>;
let gateway: TestGateway;
let key: string;
let catalog: Array<{ id: string }>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-example-'));
  catalog = (await writeGeneratedCatalog(join(dir, 'catalog'), { [GAME]: 40 }))[GAME]!;
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), games: [GAME], hitsPerPage: [1000] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  key = gateway.createKey({ scopes: BOTH_SCOPES });
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

function runExample(): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), [EXAMPLE, GAME, dir], {
      cwd: ROOT,
      env: { ...process.env, SNAPDECK_URL: gateway.base, SNAPDECK_KEY: key },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

const jsonl = async (file: string) => (await readFile(join(dir, file), 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line));

describe('the mirroring example', () => {
  it('is in docs/partners/syncing-decks.md, verbatim, in under 40 lines', async () => {
    const example = await readFile(EXAMPLE, 'utf8');
    expect(example.trimEnd().split('\n').length).toBeLessThan(40);
    expect(await readFile(PAGE, 'utf8')).toContain(`\`\`\`ts\n${example.trimEnd()}\n\`\`\``);
  });

  it('mirrors the catalog and the decks, then only what changed, removals and a late import included, without enumerating again', async () => {
    const nextId = idGenerator(77);
    const deck = (i: number, over: Partial<DeckLine> = {}): DeckLine => ({
      id: nextId(),
      gameId: GAME,
      name: `Mirror ${i}`,
      ownerDisplayName: 'partner',
      visibility: 'public',
      createdAt: iso(Date.parse('2026-04-01T00:00:00Z') + i * 1000),
      updatedAt: iso(Date.parse('2026-04-02T00:00:00Z') + i * 1000),
      cards: [{ cardId: catalog[i % catalog.length]!.id, quantity: 2, zoneId: 'main' }],
      ...over,
    });
    const decks = Array.from({ length: 70 }, (_, i) => deck(i));
    await importLines(join(dir, 'snapdeck.db'), decks);

    const first = await runExample();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`${GAME}: 70 decks synced, 0 removed`);
    const cards = await jsonl(`${GAME}.cards.jsonl`);
    expect(cards.map((c) => c.id).sort()).toEqual(catalog.map((c) => c.id).sort());
    expect((await jsonl(`${GAME}.decks.jsonl`)).map((d) => d.id).sort()).toEqual(decks.map((d) => d.id).sort());

    const renamed = { ...decks[3]!, name: 'Renamed', updatedAt: iso(Date.parse('2026-05-01T00:00:00Z')) };
    // Imported after the first run with an updatedAt older than everything it synced.
    const added = deck(100, { createdAt: iso(Date.parse('2026-03-01T00:00:00Z')), updatedAt: iso(Date.parse('2026-03-01T00:00:00Z')) });
    await importLines(join(dir, 'snapdeck.db'), [renamed, added, { ...decks[8]!, visibility: 'private', updatedAt: renamed.updatedAt }, { id: decks[9]!.id, deleted: true }]);

    const second = await runExample();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`${GAME}: 2 decks synced, 2 removed`);
    const log = await jsonl(`${GAME}.decks.jsonl`);
    expect(log.slice(70).map((line) => (line.deleted ? `-${line.id}` : `${line.id} ${line.name}`)).sort()).toEqual(
      [`${renamed.id} Renamed`, `${added.id} Mirror 100`, `-${decks[8]!.id}`, `-${decks[9]!.id}`].sort(),
    );
    // Replaying the log gives exactly the public decks.
    const mirror = new Map<string, string>();
    for (const line of log) line.deleted ? mirror.delete(line.id) : mirror.set(line.id, line.name);
    expect(mirror.size).toBe(69);
    expect(mirror.get(renamed.id)).toBe('Renamed');

    const third = await runExample();
    expect(third.stderr).toContain(`${GAME}: 0 decks synced, 0 removed`);
    expect((await jsonl(`${GAME}.decks.jsonl`)).length).toBe(log.length);
  });
});
