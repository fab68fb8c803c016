/**
 * One build in its own process for bench:search (search.ts): prints, as one JSON line, the build's
 * seconds, the seconds of its search step (from the end of the pages phase to the start of the
 * finishing phase) and the process's own peak RSS. The parent samples the whole process tree
 * (this process and Pagefind's binary) for the combined peak.
 */
import { FsDriver, build } from '@snapdeck/snapshot';

const [catalogDir, snapshots, game] = process.argv.slice(2) as [string, string, string];
let pagesEnd = 0;
let finishingStart = 0;
const started = performance.now();
await build({
  catalogDir,
  storage: new FsDriver(snapshots),
  games: [game],
  onProgress: (p) => {
    if (p.phase === 'pages' || p.phase === 'cards' || p.phase === 'hits') pagesEnd = performance.now();
    if (p.phase === 'finishing' && finishingStart === 0) finishingStart = performance.now();
  },
});
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ seconds, searchSeconds: (finishingStart - pagesEnd) / 1000, nodeMaxRssKiB: process.resourceUsage().maxRSS }));
