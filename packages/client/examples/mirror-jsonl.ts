// Mirrors a game's card catalog and public decks into JSONL files, incrementally:
//   SNAPDECK_URL=https://…/v1 SNAPDECK_KEY=sd_live_… npx tsx mirror-jsonl.ts digimon ./mirror
import { appendFile, open, readFile, rename, writeFile } from 'node:fs/promises';
import { SnapdeckClient, type DeckCheckpoint, type GameSlug } from '@snapdeck/client';

const game = (process.argv[2] ?? 'digimon') as GameSlug;
const dir = process.argv[3] ?? '.';
const client = new SnapdeckClient({ baseUrl: process.env.SNAPDECK_URL!, apiKey: process.env.SNAPDECK_KEY });
const stateFile = `${dir}/${game}.state.json`;
const state: { checkpoint: DeckCheckpoint | null } = await readFile(stateFile, 'utf8').then(JSON.parse, () => ({ checkpoint: null }));

// Cards: a full walk (restarts and retries are the client's) into a new file, swapped in whole.
const cards = await open(`${dir}/${game}.cards.jsonl.tmp`, 'w');
for await (const hit of client.walkCards(game)) await cards.write(`${JSON.stringify(hit)}\n`);
await cards.close();
await rename(`${dir}/${game}.cards.jsonl.tmp`, `${dir}/${game}.cards.jsonl`);

// Decks: every change since the last run, in commit order, appended to a log of upserts and
// removals. The first run (or one whose checkpoint is too old) starts with `reset`: the log starts
// over, and every public deck follows. No full enumeration otherwise: removals are in the feed.
const sync = client.syncDecks(game, { checkpoint: state.checkpoint });
let log = '';
for await (const event of sync) {
  if (event.type === 'reset') log = 'RESET';
  if (event.type === 'upsert') log += `${JSON.stringify(event.deck)}\n`;
  if (event.type === 'removed') log += `${JSON.stringify({ id: event.id, deleted: true })}\n`;
}
if (log.startsWith('RESET')) await writeFile(`${dir}/${game}.decks.jsonl`, log.slice(5));
else await appendFile(`${dir}/${game}.decks.jsonl`, log);
await writeFile(stateFile, JSON.stringify({ checkpoint: sync.checkpoint }));
console.error(`${game}: ${sync.progress.upserts} decks synced, ${sync.progress.removals} removed`);
