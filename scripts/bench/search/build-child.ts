/**
 * One build in its own process for bench:search (search.ts): prints, as one JSON line, the build's
 * seconds, the seconds of its search steps (per game, from the end of its pages phase to the start
 * of its finishing phase; summed) and the process's own peak RSS. The parent samples the whole
 * process tree (this process and Pagefind's binary) for the combined peak.
 * Arguments: CATALOG_DIR SNAPSHOTS [--without-search] [GAME]... (no game: every catalog of the
 * folder; --without-search: the baseline, the same build without search indexes).
 */
import { FsDriver, build } from '@snapdeck/snapshot';

const [catalogDir, snapshots, ...rest] = process.argv.slice(2) as [string, string, ...string[]];
const withoutSearchIndex = rest.includes('--without-search');
const games = rest.filter((arg) => arg !== '--without-search');
const pagesEnd = new Map<string, number>();
const finishingStart = new Map<string, number>();
const started = performance.now();
await build({
  catalogDir,
  storage: new FsDriver(snapshots),
  ...(games.length > 0 ? { games } : {}),
  withoutSearchIndex,
  onProgress: (p) => {
    if (p.phase === 'pages' || p.phase === 'cards' || p.phase === 'hits') pagesEnd.set(p.game, performance.now());
    if (p.phase === 'finishing' && !finishingStart.has(p.game)) finishingStart.set(p.game, performance.now());
  },
});
const seconds = (performance.now() - started) / 1000;
const searchSeconds = [...finishingStart].reduce((sum, [game, at]) => sum + (at - (pagesEnd.get(game) ?? at)) / 1000, 0);
console.log(JSON.stringify({ seconds, searchSeconds, nodeMaxRssKiB: process.resourceUsage().maxRSS }));
