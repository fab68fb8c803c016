/**
 * (i) The writer's publish per import (`npm run bench:store -- --only writer [--sizes 300000,1000000]
 * [--imports 5] [--cli packages/cli/bin/snapdeck.js]`): for each size, a copy of the generated deck
 * database (keys and share tokens added), published whole once with `store publish`, then `decks
 * import FILE --publish LOCATION` of 100 new decks, `--imports` times, and of 1,000 decks as often;
 * then a key created with `keys create --publish`, and last one more 100-deck import after another
 * program wrote the database and checkpointed it (the fallback: every page compared). Each command is timed from its start to its exit
 * (GNU time: elapsed and the process's peak RSS); bytes sent and the publish's own time are read
 * from the command's report. `--cli` times another checkout's CLI on the same databases (the
 * before/after of a change: the two runs alternate per size).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { KeyStore, DeckStore, openDatabase } from '@snapdeck/store';
import { SYNTHETIC_TEMPLATES, generateDeckLines } from '../../lib/deck-generator.ts';

export interface WriterOptions {
  clis: Array<{ name: string; cli: string }>;
  work: string;
  sizes: number[];
  imports: number;
  seed: number;
  /** A fresh copy of the generated database of `count` decks. */
  database: (count: number, name: string) => Promise<string>;
}

interface Timed {
  seconds: number;
  peakMB: number;
  sentMB: number;
  publishSeconds: number;
  report: string;
}

function timed(cli: string, args: string[]): Timed {
  const run = spawnSync('/usr/bin/time', ['-f', 'TIMED %e %M', process.execPath, cli, ...args], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed: ${run.stderr}`);
  const [, seconds, kb] = /TIMED ([\d.]+) (\d+)/.exec(run.stderr)!;
  // The report is on stderr after a change (--publish), on stdout for `store publish`; never printed here whole (keys create shows a key).
  const lines = `${run.stderr}\n${run.stdout}`.split('\n').filter((l) => l.startsWith('published store version') || l.startsWith('(every page'));
  const text = lines.join('\n');
  const sent = /\(([\d.]+) MB\)/.exec(text);
  const took = /in ([\d.]+) s/.exec(text);
  return { seconds: Number(seconds), peakMB: Number(kb) / 1024, sentMB: sent ? Number(sent[1]) : 0, publishSeconds: took ? Number(took[1]) : NaN, report: lines.filter((l) => l.startsWith('(every page')).join(' | ') };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const spread = (values: number[], digits = 2) => `median ${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

export async function writerPublishes(o: WriterOptions): Promise<void> {
  let seed = o.seed + 50_000;
  for (const count of o.sizes) {
    for (const { name, cli } of o.clis) {
      const db = await o.database(count, name);
      const location = join(o.work, `store-writer-${name}-${count}`);
      const writer = openDatabase(db);
      const keys = new KeyStore(writer);
      for (let i = 0; i < 20; i++) keys.create({ name: `partner ${i}` });
      const store = new DeckStore(writer);
      for (const id of writer.prepare<[], string>('SELECT id FROM decks ORDER BY seq LIMIT 2000').pluck().all()) store.createShareToken(id, 3600);
      writer.close();
      const full = timed(cli, ['store', 'publish', '--to', location, '--db', db]);
      console.log(`(i) ${name}, ${count.toLocaleString('en')} decks: full publish ${full.seconds.toFixed(1)} s (publish ${full.publishSeconds.toFixed(1)} s), peak RSS ${full.peakMB.toFixed(0)} MB, ${full.sentMB.toFixed(1)} MB sent`);
      for (const size of [100, 1000]) {
        const runs: Timed[] = [];
        for (let i = 0; i < o.imports; i++) {
          const file = join(o.work, `import-${size}-${seed}.jsonl`);
          writeFileSync(file, [...generateDeckLines({ seed: seed++, count: size, templates: SYNTHETIC_TEMPLATES })].join('\n'));
          const run = timed(cli, ['decks', 'import', file, '--db', db, '--publish', location]);
          runs.push(run);
          if (run.report) console.log(`      ${run.report}`);
        }
        console.log(`    ${size} decks --publish, ${o.imports} imports: command ${spread(runs.map((r) => r.seconds))} s; its publish ${spread(runs.map((r) => r.publishSeconds))} s; peak RSS ${spread(runs.map((r) => r.peakMB), 0)} MB; sent ${spread(runs.map((r) => r.sentMB))} MB`);
      }
      const key = timed(cli, ['keys', 'create', '--name', 'bench', '--db', db, '--publish', location]);
      console.log(`    keys create --publish: command ${key.seconds.toFixed(2)} s, its publish ${(key.publishSeconds * 1000).toFixed(0)} ms, ${(key.sentMB * 1000).toFixed(0)} kB sent`);
      // The fallback's cost: another program wrote the database and checkpointed it as it closed
      // (as the sqlite3 shell does), so the next publish cannot know what changed and compares every page.
      const other = new Database(db);
      other.prepare('UPDATE decks SET view_count = view_count + 1 WHERE rowid IN (SELECT rowid FROM decks LIMIT 10)').run();
      other.close();
      const file = join(o.work, `import-fallback-${seed}.jsonl`);
      writeFileSync(file, [...generateDeckLines({ seed: seed++, count: 100, templates: SYNTHETIC_TEMPLATES })].join('\n'));
      const fallback = timed(cli, ['decks', 'import', file, '--db', db, '--publish', location]);
      if (!fallback.report) throw new Error('the publish after another program checkpointed did not compare every page');
      console.log(`    100 decks --publish after another program wrote and checkpointed (every page compared): command ${fallback.seconds.toFixed(2)} s, its publish ${fallback.publishSeconds.toFixed(2)} s, peak RSS ${fallback.peakMB.toFixed(0)} MB, ${fallback.sentMB.toFixed(2)} MB sent`);
    }
  }
}
