/**
 * How many generated cases the property and model-based suites (test/generated/) run, and how a
 * failure is replayed.
 *
 * - `SNAPDECK_CASES` is the total for one run of all those suites (default 3,000: the README's test
 *   command); each suite takes its share. `npm run test:deep` sets 100,000.
 * - A failure prints fast-check's report (seed, path, the shrunk counterexample) and one line to
 *   replay exactly that case: `SNAPDECK_SEED=… SNAPDECK_PATH=… npx vitest run <file>`.
 */
import fc from 'fast-check';

export const TOTAL_CASES = positive(process.env.SNAPDECK_CASES, 3000);

function positive(text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`SNAPDECK_CASES must be a positive integer, not ${JSON.stringify(text)}`);
  return value;
}

/** fast-check's replay path of a command sequence (fc.commands `replayPath`), when replaying one. */
export const COMMANDS_REPLAY_PATH = process.env.SNAPDECK_REPLAY || undefined;

/** This suite's share of SNAPDECK_CASES, at least `min`. */
export function casesFor(share: number, min = 1): number {
  return Math.max(min, Math.round(TOTAL_CASES * share));
}

/**
 * fast-check parameters for `numRuns` runs: replays SNAPDECK_SEED / SNAPDECK_PATH when set, and on
 * failure throws fast-check's report followed by the line that replays it.
 */
export function fcParams<Ts>(file: string, numRuns: number, extra: Partial<fc.Parameters<Ts>> = {}): fc.Parameters<Ts> {
  const seed = process.env.SNAPDECK_SEED === undefined ? undefined : Number(process.env.SNAPDECK_SEED);
  const path = process.env.SNAPDECK_PATH;
  return {
    numRuns: seed === undefined ? numRuns : 1,
    ...(seed === undefined ? {} : { seed, path, endOnFailure: true }),
    ...extra,
    asyncReporter: async (details) => {
      if (!details.failed) return;
      // Model-based runs also need fast-check's replay path of the command sequence.
      const commands = /replayPath="([^"]*)"/.exec(fc.stringify(details.counterexample))?.[1];
      const replay = `SNAPDECK_SEED=${details.seed} SNAPDECK_PATH=${JSON.stringify(details.counterexamplePath ?? '')}${commands ? ` SNAPDECK_REPLAY=${JSON.stringify(commands)}` : ''} npx vitest run ${file}`;
      const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      throw new Error(`${fc.defaultReportMessage(details)}\n\nFirst failure of the shrunk case: ${cause}\n\nReplay this case: ${replay}`, { cause: details.errorInstance });
    },
  };
}
