/**
 * `npm start`: everything a first look needs, from a fresh clone. Generates the default catalog if
 * it is missing, builds snapshots when the catalog changed since the last build, seeds demo decks
 * and a demo key, then serves on 127.0.0.1:8787 and prints curl lines that work as printed.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GAME_SLUGS, OPERATOR_DEFAULTS, SEARCH_INDEX_NAMES, SEARCH_PATHS } from '@snapdeck/contract';
import { startGateway } from '@snapdeck/gateway';
import { KeyStore, SCOPES, openDatabase } from '@snapdeck/store';
import { FsDriver, build, layout } from '@snapdeck/snapshot';
import { ensureDefaultCatalog } from './ensure-catalog.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const catalogDir = join(root, OPERATOR_DEFAULTS.catalogDir);
const snapshotsDir = join(root, OPERATOR_DEFAULTS.snapshots);
const dbFile = join(root, OPERATOR_DEFAULTS.db);
const demoKeyFile = join(root, 'data', 'demo-key.txt');
const port = Number(process.env.PORT ?? OPERATOR_DEFAULTS.port);
const host = process.env.HOST ?? OPERATOR_DEFAULTS.host;

function portTaken(): never {
  console.error(`npm start: port ${port} on ${host} is taken (another process listens there): pick another, e.g. PORT=${port === 65535 ? port - 1 : port + 1} npm start`);
  process.exit(1);
}

function newestMtime(files: string[]): number {
  return Math.max(...files.map((file) => (existsSync(file) ? statSync(file).mtimeMs : Infinity)));
}

// 0. The port, before anything is built or written: taken, it is one line naming the way out
// and exit 1 (not a stack trace after the build).
await new Promise<void>((resolvePort, reject) => {
  const probe = createServer()
    .once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? portTaken() : reject(error)))
    .listen(port, host, () => probe.close(() => resolvePort()));
});

// 1. The default catalog (seeded, so every clone gets the same cards).
ensureDefaultCatalog(catalogDir);

// 2. Snapshots, when missing or older than the catalog.
const pointers = GAME_SLUGS.map((game) => join(snapshotsDir, ...layout.pointer(game).split('/')));
const catalogFiles = GAME_SLUGS.map((game) => join(catalogDir, `${game}.jsonl`));
const builtAt = Math.min(...pointers.map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0)));
if (builtAt === 0 || newestMtime(catalogFiles) > builtAt) {
  console.error('building snapshots …');
  for (const r of await build({ catalogDir, storage: new FsDriver(snapshotsDir) })) {
    console.error(`  ${r.game}: ${r.totalHits} cards, version ${r.version} (${r.seconds.toFixed(1)} s)`);
  }
}

// 3. Demo key (kept in data/demo-key.txt, gitignored, so restarts print the same one) and decks.
mkdirSync(dirname(dbFile), { recursive: true });
const db = openDatabase(dbFile);
const keys = new KeyStore(db);
let demoKey = existsSync(demoKeyFile) ? readFileSync(demoKeyFile, 'utf8').trim() : '';
if (!demoKey || !keys.authenticate(demoKey)) {
  demoKey = keys.create({ name: 'demo', scopes: [...SCOPES] }).key;
  writeFileSync(demoKeyFile, `${demoKey}\n`, { mode: 0o600 });
}
const demo = await seedDemo(db);
db.close();
const sampleCardId = (JSON.parse(readFileSync(join(catalogDir, 'digimon.jsonl'), 'utf8').split('\n', 1)[0]!) as { id: string }).id;

// 4. Serve (the port taken since step 0: the same line).
const gateway = await startGateway({ port, host, snapshots: snapshotsDir, db: dbFile }).catch((error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? portTaken() : Promise.reject(error)));
const base = `${gateway.url}/v1`;
console.log(`
snapdeck is serving ${base}  (Ctrl-C to stop)

Try:
  curl -s -H 'X-API-Key: ${demoKey}' '${base}/games'
  curl -s -H 'X-API-Key: ${demoKey}' '${base}/games/digimon/cards?hitsPerPage=2'
  curl -s -H 'X-API-Key: ${demoKey}' '${base}/games/digimon/cards/${sampleCardId}'${demo.lines.map((line) => `\n  ${line.replaceAll('{base}', base).replaceAll('{key}', demoKey)}`).join('')}
  curl -s '${base}/openapi.json'
  curl -s '${gateway.url}${SEARCH_PATHS.descriptor(SEARCH_INDEX_NAMES.digimon)}'   # digimon's search index (no key: the client downloads it)

API reference (open it in a browser; "Authorize" with the key above to try calls):
  ${gateway.url}/docs
Card search (in a browser, run in the page from the index's files):
  ${gateway.url}/search
`);
const stop = () => gateway.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

/** Demo decks, when the deck layer is present: returns curl lines with {base} and {key} placeholders. */
async function seedDemo(database: typeof db): Promise<{ lines: string[] }> {
  const seeder = join(root, 'scripts', 'seed-demo-decks.ts');
  if (!existsSync(seeder)) return { lines: [] };
  const { seedDemoDecks, demoCurlLines } = (await import(seeder)) as {
    seedDemoDecks: (options: { db: typeof db; catalogDir: string }) => unknown;
    demoCurlLines?: (seeded: unknown) => string[];
  };
  const seeded = await seedDemoDecks({ db: database, catalogDir });
  return { lines: demoCurlLines ? demoCurlLines(seeded) : [] };
}
