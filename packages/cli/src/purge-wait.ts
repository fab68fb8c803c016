import { Option } from 'commander';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { PRESENCE_MISSED_INTERVALS, changeTarget, waitForGateways, type PresenceRecord } from '@snapdeck/store';
import { positiveInteger } from './options.ts';
import { openStoreLocation } from './store-location.ts';

/**
 * The wait between a publish and its cache purge (decisions.md: "a cache purge is sent only once
 * every gateway following the store serves the change"): every gateway following the location
 * says what it serves (presence records, packages/store/src/published/presence.ts); the purge
 * goes once every gateway seen lately serves the published version, keys and decks, or when
 * `--purge-wait` runs out (then the purge still goes, and the command names the laggards and
 * exits 1: a request to one of them may put the old answer back into the cache).
 */

/**
 * When no gateway has reported at all (gateways without write access to `_store/gateways/`, or of
 * a release before presence records): the contract's propagation bound for keys and tokens
 * (decisions.md: within 5 s), waited out as before presence existed. It does not cover a decks
 * download that takes longer; the note says so.
 */
export const UNREPORTED_GATEWAYS_WAIT_MS = 5000;

export function purgeWaitOption(): Option {
  return new Option(
    '--purge-wait <seconds>',
    'with --publish and --purge: the longest wait for every gateway following the store to serve the change before the purge is sent',
  )
    .argParser(positiveInteger)
    .default(OPERATOR_DEFAULTS.purgeWaitSeconds);
}

/** A published version to wait for before purging. */
export interface PublishedChange {
  location: string;
  version: string;
  /** --purge-wait, in seconds. */
  waitSeconds: number;
}

export interface WaitOutcome {
  /** What to print on stderr (who serves it, after how long). */
  note: string;
  /** Set when not every gateway served the change in time: the reason, for the exit-1 message. */
  lagging: string | null;
}

const ago = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function describeGateway(record: PresenceRecord): string {
  const decks = record.decksVersion === record.version ? '' : `, decks of ${record.decksVersion}`;
  return `${record.gateway} on ${record.host} (pid ${record.pid}) serves ${record.version}${decks}, as of ${record.writtenAt}`;
}

/** Waits until every gateway following `change.location` serves `change.version`, or the wait runs out. */
export async function waitForChange(change: PublishedChange): Promise<WaitOutcome> {
  const driver = openStoreLocation(change.location, `--publish ${change.location}`);
  try {
    const wait = await changeTarget(driver, change.version)
      .then((target) => waitForGateways(driver, target, { timeoutMs: change.waitSeconds * 1000 }))
      .catch((error: unknown) => ({ waitedMs: 0, ready: [], laggards: [], unreadable: (error as Error).message }));
    if (wait.unreadable !== null) {
      return {
        note: `the gateways' records at ${change.location} could not be read for ${ago(wait.waitedMs)} (${wait.unreadable}); purging now\n`,
        lagging: `whether the gateways serve ${change.version} is unknown: their records at ${change.location} could not be read (${wait.unreadable})`,
      };
    }
    if (wait.laggards.length > 0) {
      const list = wait.laggards.map((record) => `  ${describeGateway(record)}`).join('\n');
      return {
        note: `${wait.laggards.length} of ${wait.laggards.length + wait.ready.length} gateway(s) did not serve ${change.version} within --purge-wait ${change.waitSeconds} s; purging now\n`,
        lagging: `not every gateway served ${change.version} when the purge was sent (after ${ago(wait.waitedMs)}, --purge-wait ${change.waitSeconds}):\n${list}\nA request to such a gateway may have put the old answer back into the cache.`,
      };
    }
    if (wait.ready.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, UNREPORTED_GATEWAYS_WAIT_MS));
      return {
        note:
          `no gateway following ${change.location} has reported what it serves (in its last ${PRESENCE_MISSED_INTERVALS} presence intervals): ` +
          `purging after the ${UNREPORTED_GATEWAYS_WAIT_MS / 1000} s propagation bound for keys, which a slower decks download would outlast\n`,
        lagging: null,
      };
    }
    return { note: `all ${wait.ready.length} gateway(s) following ${change.location} serve ${change.version} (after ${ago(wait.waitedMs)})\n`, lagging: null };
  } finally {
    await driver.close?.();
  }
}
