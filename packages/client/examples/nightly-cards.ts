// A nightly mirror of a game's cards in a JSONL file, fetching only what changed since last night:
//   SNAPDECK_URL=https://…/v1 SNAPDECK_KEY=sd_live_… npx tsx nightly-cards.ts digimon ./mirror
import { readFile, rename, writeFile } from 'node:fs/promises';
import { SnapdeckClient, type CardCheckpoint, type GameSlug } from '@snapdeck/client';

const game = (process.argv[2] ?? 'digimon') as GameSlug;
const dir = process.argv[3] ?? '.';
const client = new SnapdeckClient({ baseUrl: process.env.SNAPDECK_URL!, apiKey: process.env.SNAPDECK_KEY });
const file = `${dir}/${game}.cards.jsonl`;
const stateFile = `${dir}/${game}.cards-state.json`;
const checkpoint: CardCheckpoint | null = await readFile(stateFile, 'utf8').then(JSON.parse, () => null);

// The copy as of the checkpoint (id → hit); a reset (first run, or a checkpoint too old) empties it.
const lines = checkpoint ? (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean) : [];
const cards = new Map<string, unknown>(lines.map((line) => [JSON.parse(line).id, JSON.parse(line)]));
const sync = client.syncCards(game, { checkpoint });
let changed = 0;
for await (const event of sync) {
  if (event.type === 'reset') cards.clear();
  if (event.type === 'upsert') cards.set(event.hit.id, event.hit);
  if (event.type === 'delete') cards.delete(event.cardId);
  if (event.type === 'upsert' || event.type === 'delete') changed += 1;
}
// The file first, whole (written aside, then swapped in), then the checkpoint that describes it.
const sorted = [...cards.keys()].sort();
await writeFile(`${file}.tmp`, sorted.map((id) => `${JSON.stringify(cards.get(id))}\n`).join(''));
await rename(`${file}.tmp`, file);
await writeFile(stateFile, JSON.stringify(sync.checkpoint));
const how = sync.progress.resets > 0 ? 'full walk' : 'changes only';
console.error(`${game}: ${cards.size} cards at ${sync.checkpoint!.version} (${how}, ${changed} upserts/deletes, ${sync.progress.requests} requests)`);
