import type { Logger } from 'pino';
import { watchStorage, type StorageDriver, type StorageOperation } from '@snapdeck/snapshot';

/** Which of the gateway's storage locations a call went to (the `storage` metric label). */
export type StorageRole = 'snapshots' | 'store';

export interface StorageHealthOptions {
  /** While storage stays unreachable, the warning is repeated at most this often (default 60 s). */
  warnEveryMs?: number;
  /** While storage is unreachable, it is probed this often (default 5 s), so its return is seen without traffic. */
  probeEveryMs?: number;
  /** Request failures caused by storage logged per minute at most (default 5); the rest counted. */
  requestErrorsPerMinute?: number;
  now?: () => number;
}

interface Outage {
  /** When the first failed call began. */
  since: number;
  failures: number;
  lastWarnAt: number;
  probe: NodeJS.Timeout;
}

/** Any key: a HEAD answered, found or not, says the location is reachable. */
const PROBE_KEY = '_snapdeck/secret';

/**
 * How the gateway's storage is doing, from the outcome of every call (storage/watched.ts): errors
 * counted by role and operation (snapdeck_storage_errors_total), and an outage logged once: one
 * `warn` when calls start failing (what, since when, how many failures), repeated at most every
 * `warnEveryMs` while it lasts, and one `info` with its length when a call succeeds again (a HEAD
 * every `probeEveryMs` meanwhile, so that an idle gateway sees the end too).
 * Request failures caused by storage are logged at most `requestErrorsPerMinute` a minute, so a
 * busy gateway does not write a line per request while storage is down.
 */
export class StorageHealth {
  private readonly errors = new Map<string, { role: StorageRole; operation: StorageOperation; count: number }>();
  private readonly outages = new Map<StorageRole, Outage>();
  private readonly lastSuccess = new Map<StorageRole, number>();
  /** Errors that came out of a storage call: a request failure caused by one is a storage failure. */
  private readonly seen = new WeakSet<object>();
  private readonly drivers = new Map<StorageRole, StorageDriver>();
  private readonly warnEveryMs: number;
  private readonly probeEveryMs: number;
  private readonly perMinute: number;
  private readonly now: () => number;
  private minuteStart = 0;
  private loggedThisMinute = 0;
  private suppressed = 0;
  private closed = false;

  constructor(private readonly log: Logger, options: StorageHealthOptions = {}) {
    this.warnEveryMs = options.warnEveryMs ?? 60_000;
    this.probeEveryMs = options.probeEveryMs ?? 5000;
    this.perMinute = options.requestErrorsPerMinute ?? 5;
    this.now = options.now ?? Date.now;
  }

  /** `driver` watched on behalf of `role`, its reads bounded by `timeoutMs` when given. */
  watch(driver: StorageDriver, role: StorageRole, timeoutMs?: number): StorageDriver {
    const watched = watchStorage(driver, { timeoutMs, onResult: (operation, error, startedAt) => this.record(role, driver.location, operation, error, startedAt) });
    this.drivers.set(role, watched);
    return watched;
  }

  /** Stops the probes of ongoing outages. */
  close(): void {
    this.closed = true;
    for (const outage of this.outages.values()) clearInterval(outage.probe);
    this.outages.clear();
  }

  /** Errors so far, by role and operation (for the metric). */
  errorCounts(): Array<{ role: StorageRole; operation: StorageOperation; count: number }> {
    return [...this.errors.values()];
  }

  /** Whether `error` (or one of its causes) came out of a failed storage call. */
  isStorageFailure(error: unknown): boolean {
    for (let at = error, depth = 0; at && typeof at === 'object' && depth < 8; at = (at as { cause?: unknown }).cause, depth++) {
      if (this.seen.has(at)) return true;
    }
    return false;
  }

  /**
   * Logs a request-path failure caused by storage, unless this minute's share is used up; the
   * next line logged says how many were left out.
   */
  logRequestFailure(level: 'warn' | 'error', fields: Record<string, unknown>, message: string): void {
    const now = this.now();
    if (now - this.minuteStart >= 60_000) {
      this.minuteStart = now;
      this.loggedThisMinute = 0;
    }
    if (this.loggedThisMinute >= this.perMinute) {
      this.suppressed++;
      return;
    }
    this.loggedThisMinute++;
    const suppressed = this.suppressed;
    this.suppressed = 0;
    this.log[level]({ ...fields, ...(suppressed > 0 ? { suppressedSinceLast: suppressed } : {}) }, message);
  }

  /** An idle gateway makes no storage call: without a probe its outage would never be seen to end. */
  private startProbe(role: StorageRole): NodeJS.Timeout {
    let probing = false;
    return setInterval(() => {
      const driver = this.drivers.get(role);
      if (probing || !driver) return;
      probing = true;
      driver.head(PROBE_KEY).then(
        () => (probing = false),
        () => (probing = false),
      );
    }, this.probeEveryMs).unref();
  }

  private record(role: StorageRole, location: string, operation: StorageOperation, error: unknown | null, startedAt: number): void {
    const now = this.now();
    if (error === null) {
      this.lastSuccess.set(role, now);
      const outage = this.outages.get(role);
      if (!outage) return;
      this.outages.delete(role);
      clearInterval(outage.probe);
      const seconds = Math.round((now - outage.since) / 100) / 10;
      this.log.info({ storage: role, location, outageSeconds: seconds, failures: outage.failures }, `storage reachable again: ${location} (${role}) answers after ${seconds} s unreachable (${outage.failures} failed calls)`);
      return;
    }
    if (error && typeof error === 'object') this.seen.add(error);
    const key = `${role} ${operation}`;
    const tally = this.errors.get(key) ?? { role, operation, count: 0 };
    tally.count++;
    this.errors.set(key, tally);
    // A call begun before storage last answered says nothing new about reachability; after
    // close(), calls still finishing start no outage (nor its probe).
    if (this.closed || startedAt < (this.lastSuccess.get(role) ?? 0)) return;
    let outage = this.outages.get(role);
    if (!outage) {
      outage = { since: startedAt, failures: 0, lastWarnAt: -Infinity, probe: this.startProbe(role) };
      this.outages.set(role, outage);
    }
    outage.failures++;
    if (now - outage.lastWarnAt < this.warnEveryMs) return;
    outage.lastWarnAt = now;
    const since = new Date(outage.since).toISOString();
    this.log.warn(
      { storage: role, location, since, failures: outage.failures, err: error },
      `storage unreachable: ${location} (${role}) has failed every call since ${since} (${outage.failures} failed calls so far)`,
    );
  }
}
