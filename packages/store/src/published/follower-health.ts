import type { StoreRefusal, StoreStatus } from '../source.ts';
import type { FollowedView } from './follower-view.ts';
import { StoreDamagedError } from './parts.ts';

/**
 * What the follower keeps track of about storage besides the version it serves: damaged objects,
 * storage outages, refused pointers. Each decides what is tried again when, and what is logged.
 */
export type FollowerLog = { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
type Log = FollowerLog;

/** First wait before damaged bytes are read again; doubles with each failure, up to the cap. */
export const DAMAGED_RETRY_FIRST_MS = 5_000;
export const DAMAGED_RETRY_MAX_MS = 5 * 60_000;

/**
 * Objects whose bytes failed their checks (a manifest that does not parse, a segment missing or
 * not matching its SHA-256): not read again until a backoff has passed (5 s, doubling to 5 min),
 * so a damaged gigabyte is not downloaded every second, yet a repaired object is picked up. Only
 * damage counts: a failed read (a reset connection, a timeout, a 5xx) is no verdict on the bytes
 * and is tried again at the next poll. A new version names new objects, so it is never held back
 * by an old one's damage. Keys are object names (content-addressed parts, versions), in a Map.
 */
/** A damaged object still waiting out its backoff: nothing was read, nothing new to log. */
export class WaitingOutDamage extends Error {}

export class DamagedObjects {
  private readonly entries = new Map<string, { until: number; failures: number; message: string }>();

  /** The damage message while `key` waits out its backoff, else null. */
  blocked(key: string): string | null {
    const entry = this.entries.get(key);
    return entry && Date.now() < entry.until ? entry.message : null;
  }

  /** Records `error` against `key` when it is damage; returns whether it was. */
  note(key: string, error: unknown): boolean {
    if (!(error instanceof StoreDamagedError)) return false;
    const failures = (this.entries.get(key)?.failures ?? 0) + 1;
    const wait = Math.min(DAMAGED_RETRY_MAX_MS, DAMAGED_RETRY_FIRST_MS * 2 ** (failures - 1));
    this.entries.set(key, { until: Date.now() + wait, failures, message: error.message });
    return true;
  }

  /** `key` was read whole and good. */
  clear(key: string): void {
    this.entries.delete(key);
  }

  /** Reads `key` through the backoff (WaitingOutDamage while it lasts), noting damage or success. */
  async read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const blocked = this.blocked(key);
    if (blocked) throw new WaitingOutDamage(blocked);
    try {
      const value = await load();
      this.clear(key);
      return value;
    } catch (error) {
      this.note(key, error);
      throw error;
    }
  }
}

/**
 * Storage trouble logged as decisions.md asks: one `warn` when it starts, naming what failed and
 * since when, again at most once a minute while it lasts, and one `info` when it ends, with its
 * length. (Under one failed request in three, a poll a second would otherwise log every second.)
 */
export class OutageLog {
  private since: number | null = null;
  private lastWarned = 0;

  /** `reported`: errors someone else has already logged as a storage outage (the gateway's watched driver): not logged twice. */
  constructor(private readonly log: Log | undefined, private readonly what: string, private readonly reported?: (error: unknown) => boolean) {}

  failed(error: unknown): void {
    if (this.reported?.(error)) return;
    const now = Date.now();
    this.since ??= now;
    if (now - this.lastWarned < 60_000) return;
    this.lastWarned = now;
    this.log?.warn({ err: error, since: new Date(this.since).toISOString() }, `store: ${this.what} unreachable since ${new Date(this.since).toISOString()}; the last version keeps being served`);
  }

  succeeded(): void {
    if (this.since === null) return;
    const seconds = (Date.now() - this.since) / 1000;
    this.since = null;
    this.lastWarned = 0;
    this.log?.info({ outageSeconds: seconds }, `store: ${this.what} reachable again after ${seconds.toFixed(1)} s`);
  }
}

/** Refused pointers remembered (so that each is read and logged once): the last few are plenty. */
const REFUSALS_KEPT = 100;

/**
 * Pointers refused because they name a version older than (or unrelated to) one served
 * (version-order.ts): each distinct one is read, counted and logged once.
 */
export class Refusals {
  private readonly known = new Map<string, StoreRefusal>();
  /** Distinct pointers refused since the start. */
  count = 0;

  constructor(private readonly log: Log | undefined, private readonly location: string) {}

  get(version: string): StoreRefusal | null {
    return this.known.get(version) ?? null;
  }

  refuse(version: string, reason: 'older' | 'unrelated', served: string): StoreRefusal {
    const what = reason === 'older' ? `older than ${served}` : `of another store than ${served} (or another branch of it)`;
    const message = `the pointer at ${this.location} names ${version}, ${what} which this gateway has served; ${served} keeps being served until the pointer moves past it`;
    const refusal: StoreRefusal = { version, reason, since: new Date().toISOString(), message };
    this.known.set(version, refusal);
    if (this.known.size > REFUSALS_KEPT) this.known.delete(this.known.keys().next().value!);
    this.count += 1;
    this.log?.error({ pointer: version, served, reason }, `store: refusing a pointer that goes backwards: ${message}`);
    return refusal;
  }
}

/** What a follower reports (status()): the view served, how long ago storage confirmed it, and what went wrong. */
export function followerStatus(view: FollowedView | null, ageMs: number, state: {
  location: string; maxAgeMs?: number; problem: string | null; refused: StoreRefusal | null; refusedPointers: number; downloadedBytes: number;
}): StoreStatus {
  const stale = state.maxAgeMs !== undefined && ageMs > state.maxAgeMs;
  return {
    mode: 'store',
    location: state.location,
    ready: view !== null && !stale,
    version: view?.version ?? null,
    decksVersion: view?.decksVersion ?? null,
    ageSeconds: Number.isFinite(ageMs) ? Math.round(ageMs / 100) / 10 : null,
    problem: view === null || stale || state.problem ? (stale ? `stale: last confirmed ${Math.round(ageMs / 1000)} s ago` : state.problem) : null,
    sequence: view?.position.sequence ?? null,
    refused: state.refused,
    refusedPointers: state.refusedPointers,
    downloadedBytes: state.downloadedBytes,
  };
}
