import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { SHA256_HEX_PATTERN, VERSION_PATTERN, type StorageDriver } from '@snapdeck/snapshot';
import { storeLayout } from './layout.ts';
import { tempName } from './parts.ts';

/**
 * Presence: each gateway following a published store says, at the store's location, what it
 * serves (`_store/gateways/<gateway-id>.json`), so that a writer can send a cache purge only once
 * every gateway serves the change (presence-wait.ts) and `snapdeck store status` can show the lag.
 *
 * The record is written when the served view changes, once no request still reads an older view
 * (so "serves V" means no answer from before V is still being produced), and rewritten every
 * OPERATOR_DEFAULTS.storePresenceMs so that a writer can tell a live gateway from a dead one. A
 * gateway that stops cleanly deletes its record. Storage requests per gateway and day: one PUT
 * per interval (2,880 at 30 s) plus one per version it swaps to, one DELETE at shutdown; no reads.
 * A record is not part of any store version: pruning, gc and restore never read it.
 *
 * The gateway id is no secret: with `--cache-dir` it is kept there (stable across restarts, so a
 * restarted gateway replaces its own record), otherwise it is random per process.
 */

export const GATEWAY_ID_PATTERN = /^gw_[0-9a-f]{16}$/;
/**
 * A gateway whose record was not rewritten for this many of its intervals is gone (crashed, cut
 * off from storage): a writer no longer waits for it. Three, so that one slow or failed write is
 * not taken for a death; so a gateway that dies without stopping is waited for (up to the purge
 * wait) by purges in the 90 s after its last write at the default interval.
 */
export const PRESENCE_MISSED_INTERVALS = 3;
const GATEWAY_ID_FILE = 'gateway-id';

export const presenceRecordSchema = z.object({
  format: z.literal(1),
  kind: z.literal('snapdeck-store-gateway'),
  gateway: z.string().regex(GATEWAY_ID_PATTERN),
  /** The host's name and the process, to tell gateways apart in `store status`. */
  host: z.string().max(255),
  pid: z.number().int().nonnegative(),
  startedAt: z.string().datetime(),
  /** When the gateway wrote this record (its clock; hosts are expected on NTP). */
  writtenAt: z.string().datetime(),
  /** How often it rewrites the record: a writer counts it gone after PRESENCE_MISSED_INTERVALS of them. */
  intervalMs: z.number().int().positive(),
  /** The store version whose keys and tokens it serves. */
  version: z.string().regex(VERSION_PATTERN),
  /** The store version whose decks it serves (older than `version` while newer decks download). */
  decksVersion: z.string().regex(VERSION_PATTERN),
  /** The SHA-256 of the decks part it serves (the same part may be named by several versions). */
  decksPart: z.string().regex(SHA256_HEX_PATTERN),
});
export type PresenceRecord = z.infer<typeof presenceRecordSchema>;

/** What a gateway serves: the part of a presence record that changes with the view. */
export type ServedState = Pick<PresenceRecord, 'version' | 'decksVersion' | 'decksPart'>;

/** The shape of a follower's view that presence reads (follower.ts FollowedView). */
interface ViewLike {
  version: string;
  decksVersion: string;
  auth: { users: number };
  deckPart: { users: number; ref: { sha256: string } };
}

export function servedStateOf(view: ViewLike): ServedState {
  return { version: view.version, decksVersion: view.decksVersion, decksPart: view.deckPart.ref.sha256 };
}

/** True once no request holds a part of `old` that `next` no longer uses (every answer from `old` is made). */
export function retiredPartsDrained(old: ViewLike | null, next: ViewLike): () => boolean {
  const retired = old ? [old.auth, old.deckPart].filter((part) => part !== next.auth && part !== next.deckPart) : [];
  return () => retired.every((part) => part.users === 0);
}

/** The gateway id kept in `cacheDir` (created there the first time), or a new one when there is none. */
export async function gatewayId(cacheDir: string | undefined): Promise<string> {
  const fresh = `gw_${randomBytes(8).toString('hex')}`;
  if (cacheDir === undefined) return fresh;
  const file = join(cacheDir, GATEWAY_ID_FILE);
  const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (GATEWAY_ID_PATTERN.test(kept)) return kept;
  const temp = tempName(file);
  await writeFile(temp, `${fresh}\n`);
  await rename(temp, file);
  return fresh;
}

type Log = { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };

export interface StorePresenceOptions {
  /** Where the gateway id is kept (the follower's `--cache-dir`); absent: a new id per process. */
  cacheDir?: string;
  /** How often the record is rewritten besides each change. Default OPERATOR_DEFAULTS.storePresenceMs. */
  intervalMs?: number;
  log?: Log;
}

/** A following gateway's presence record: kept up to date while it serves, removed when it stops. */
export class StorePresence {
  private readonly startedAt = new Date().toISOString();
  private readonly intervalMs: number;
  private id: Promise<string> | null = null;
  private state: ServedState | null = null;
  /** Views replaced since the last write whose requests may still be running. */
  private undrained: Array<() => boolean> = [];
  private writing: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private failing = false;
  private written = false;
  private closed = false;

  constructor(private readonly driver: StorageDriver, private readonly options: StorePresenceOptions = {}) {
    this.intervalMs = options.intervalMs ?? OPERATOR_DEFAULTS.storePresenceMs;
  }

  /** This gateway's id, kept in the cache folder from the first call on (the follower asks at start). */
  identify(): Promise<string> {
    return (this.id ??= gatewayId(this.options.cacheDir));
  }

  /** The follower now serves `state`; `drained` tells when the requests of the view it replaced are done. */
  served(state: ServedState, drained: () => boolean = () => true): void {
    if (this.closed) return;
    this.state = state;
    this.undrained.push(drained);
    this.timer ??= setInterval(() => this.write(), this.intervalMs).unref();
    this.write();
  }

  /** Writes the record (after any in-flight write: the latest state wins); failures are retried at the next interval. */
  private write(): void {
    if (this.writing) {
      this.again = true;
      return;
    }
    this.writing = this.writeOnce().finally(() => {
      this.writing = null;
      if (this.again && !this.closed) {
        this.again = false;
        this.write();
      }
    });
  }

  private async writeOnce(): Promise<void> {
    // Leases are released as soon as an answer is made: this wait is as long as the slowest one.
    while (!this.closed && !this.undrained.every((drained) => drained())) await new Promise((resolve) => setTimeout(resolve, 5));
    if (this.closed || !this.state) return;
    this.undrained = [];
    const id = await this.identify();
    const record: PresenceRecord = {
      format: 1, kind: 'snapdeck-store-gateway', gateway: id, host: hostname().slice(0, 255), pid: process.pid,
      startedAt: this.startedAt, writtenAt: new Date().toISOString(), intervalMs: this.intervalMs, ...this.state,
    };
    try {
      await this.driver.put(storeLayout.gateway(id), Buffer.from(JSON.stringify(record)), { contentType: 'application/json' });
      this.written = true;
      if (this.failing) this.options.log?.info({ gateway: id }, 'store: presence record written again');
      this.failing = false;
    } catch (error) {
      // Storage trouble is logged by the follower already; once here, so a writer's wait is explained.
      if (!this.failing) this.options.log?.warn({ err: error, gateway: id }, 'store: the presence record could not be written; retried every interval');
      this.failing = true;
    }
  }

  /** Stops writing and removes the record, so that no writer waits for a gateway that is gone. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.writing;
    if (!this.written || !this.id) return;
    await this.driver.delete(storeLayout.gateway(await this.id)).catch(() => {});
  }
}
