import type { StorageDriver } from '@snapdeck/snapshot';
import type { FollowerLog } from './follower-health.ts';

/** How a StoreFollower (follower.ts) runs. */
export interface StoreFollowerOptions {
  /** Folder for downloaded parts; default: a new temporary folder, removed on close. */
  cacheDir?: string;
  /** How often the pointer is read. Default OPERATOR_DEFAULTS.storePollMs, 1 s (key changes land within it plus a download). */
  pollMs?: number;
  /**
   * Every storage read of a poll (pointer, manifest) not answered within this long is given up
   * (StorageTimeoutError): the poll fails like an unreachable storage and is tried again soon, so
   * a frozen storage never hangs the follower. Part downloads are not cut short by it (a large
   * part may take longer); the storage client's idle timeout bounds them. Default
   * OPERATOR_DEFAULTS.storePollTimeoutMs; writes (the presence record) are not cut short.
   */
  pollTimeoutMs?: number;
  /**
   * The driver the polls read through, already bounded by the poll timeout (the gateway passes
   * one its storage watcher wraps, so a poll given up on is counted and logged there, once).
   * Default: the follower's driver, bounded by pollTimeoutMs.
   */
  polls?: StorageDriver;
  /**
   * Fail closed: once storage has not confirmed the served version for this long, keyed
   * endpoints and GET /decks/{id} answer 500 and /readyz 503 (revocations may be unseen).
   * Default: never (keep serving the last version).
   */
  maxAgeMs?: number;
  /** Longest wait in start() for the first download (it goes on in the background). Default 30 s. */
  startWaitMs?: number;
  /** How often the presence record (presence.ts) is rewritten besides each change. Default OPERATOR_DEFAULTS.storePresenceMs. */
  presenceMs?: number;
  log?: FollowerLog;
  /** Errors the caller already logs as a storage outage (decisions.md: logged once): not logged again. */
  reportedOutage?: (error: unknown) => boolean;
}
