// Mirrors a game's card catalog and public decks into JSONL files, incrementally:
//   SNAPDECK_URL=https://…/v1 SNAPDECK_KEY=sd_live_… npx tsx mirror-jsonl.ts digimon ./mirror
import { appendFile, open, readFile, rename, writeFile } from 'node:fs/promises';
import { SnapdeckClient, type DeckCheckpoint, type GameSlug } from '@snapdeck/client';

const game = (process.argv[2] ?? 'digimon') as GameSlug;
const dir = process.argv[3] ?? '.';
const client = new SnapdeckClient({ baseUrl: process.env.SNAPDECK_URL!, apiKey: process.env.SNAPDECK_KEY });
const stateFile = `${dir}/${game}.state.json`;
const state: { checkpoint: DeckCheckpoint | null; decks: string[] } = await readFile(stateFile, 'utf8').then(JSON.parse, () => ({ checkpoint: null, decks: [] }));

// Cards: a full walk (restarts and retries are the client's) into a new file, swapped in whole.
const cards = await open(`${dir}/${game}.cards.jsonl.tmp`, 'w');
for await (const hit of client.walkCards(game)) await cards.write(`${JSON.stringify(hit)}\n`);
await cards.close();
await rename(`${dir}/${game}.cards.jsonl.tmp`, `${dir}/${game}.cards.jsonl`);

// Decks: new and changed ones since the last run, appended to a log of upserts and removals.
const known = new Set(state.decks);
const sync = client.syncDecks(game, { since: state.checkpoint });
let log = '';
for await (const deck of sync) {
  log += `${JSON.stringify(deck)}\n`;
  known.add(deck.id);
}
// Removed or privatized decks leave no trace in the sync: compare with a full enumeration.
const live = await client.listAllDeckIds(game);
for (const id of known) {
  if (live.has(id)) continue;
  log += `${JSON.stringify({ id, deleted: true })}\n`;
  known.delete(id);
}
await appendFile(`${dir}/${game}.decks.jsonl`, log);
await writeFile(stateFile, JSON.stringify({ checkpoint: sync.checkpoint, decks: [...known] }));
console.error(`${game}: ${sync.progress.decks} decks synced, ${known.size} known`);
