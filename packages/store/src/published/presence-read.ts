import { forEachLimit, readPointer, versionTime, type StorageDriver } from '@snapdeck/snapshot';
import { storeLayout } from './layout.ts';
import { PRESENCE_MISSED_INTERVALS, presenceRecordSchema, type PresenceRecord } from './presence.ts';
import { readStoreManifest } from './publish.ts';

/**
 * The writer's side of presence (presence.ts): which gateways follow the store at a location and
 * what they serve, for `snapdeck store status` and for the wait before a cache purge.
 */

/** Records not rewritten for a day are removed by the next purge's wait: their gateway is long gone. */
export const PRESENCE_FORGET_MS = 24 * 60 * 60 * 1000;
/** How often a purge's wait reads the records again (one LIST and one GET per gateway each time). */
export const PRESENCE_POLL_MS = 250;

export interface GatewayPresence {
  record: PresenceRecord;
  /** Since the gateway last wrote its record, by this host's clock (never negative). */
  ageMs: number;
  /** Not rewritten for PRESENCE_MISSED_INTERVALS intervals: no purge waits for it. */
  gone: boolean;
}

export interface PresenceRead {
  gateways: GatewayPresence[];
  /** Keys under `_store/gateways/` that are not a valid record (shown by `store status`, never waited for). */
  unreadable: string[];
}

/** Every presence record at the location, newest first per host; one LIST, then one GET per record. */
export async function readPresence(driver: StorageDriver, now = Date.now()): Promise<PresenceRead> {
  const keys = (await driver.list(storeLayout.gatewaysPrefix)).filter((key) => key.endsWith('.json'));
  const gateways: GatewayPresence[] = [];
  const unreadable: string[] = [];
  await forEachLimit(keys, 16, async (key) => {
    const object = await driver.get(key);
    if (!object) return; // deleted between the listing and the read: a gateway that stopped
    let record: PresenceRecord;
    try {
      record = presenceRecordSchema.parse(JSON.parse(Buffer.from(object.body).toString('utf8')));
    } catch {
      unreadable.push(key);
      return;
    }
    if (storeLayout.gateway(record.gateway) !== key) {
      unreadable.push(key);
      return;
    }
    const ageMs = Math.max(0, now - Date.parse(record.writtenAt));
    gateways.push({ record, ageMs, gone: ageMs > PRESENCE_MISSED_INTERVALS * record.intervalMs });
  });
  gateways.sort((a, b) => a.record.host.localeCompare(b.record.host) || a.record.gateway.localeCompare(b.record.gateway));
  return { gateways, unreadable: unreadable.sort() };
}

/** A published version as a purge waits for it: its id and the decks part it names. */
export interface ChangeTarget {
  version: string;
  decksPart: string;
}

/**
 * Whether a gateway serves everything `target` published: keys and tokens from `target` or a later
 * version (versions only move forward: a later one holds every earlier change), and decks from
 * `target` or later, or the very decks part `target` names (a key change names the same part again).
 */
export function servesChange(record: PresenceRecord, target: ChangeTarget): { auth: boolean; decks: boolean } {
  return {
    auth: record.version >= target.version,
    decks: record.decksVersion >= target.version || record.decksPart === target.decksPart,
  };
}

/** The target of a version at the location (its manifest's decks part). */
export async function changeTarget(driver: StorageDriver, version: string): Promise<ChangeTarget> {
  const manifest = await readStoreManifest(driver, version);
  return { version, decksPart: manifest.parts.decks.sha256 };
}

/** How far behind `current` a served version is, in seconds between their ids' times (0: not behind). */
export function lagSeconds(served: string, current: string): number {
  if (served >= current) return 0;
  const a = versionTime(served)?.getTime();
  const b = versionTime(current)?.getTime();
  return a === undefined || b === undefined ? Infinity : (b - a) / 1000;
}

export interface StoreGatewaysStatus {
  location: string;
  /** The current version (null: nothing published), and when it was published. */
  current: { version: string; publishedAt: string; decksPart: string } | null;
  gateways: Array<GatewayPresence & { serves: { auth: boolean; decks: boolean } | null }>;
  unreadable: string[];
}

/** `snapdeck store status --at LOCATION`: the current version and every gateway's record measured against it. */
export async function storeGatewaysStatus(driver: StorageDriver, now = Date.now()): Promise<StoreGatewaysStatus> {
  const pointer = await readPointer(driver, storeLayout.pointer);
  const target = pointer ? await changeTarget(driver, pointer.version) : null;
  const read = await readPresence(driver, now);
  return {
    location: driver.location,
    current: pointer && target ? { version: pointer.version, publishedAt: pointer.publishedAt, decksPart: target.decksPart } : null,
    gateways: read.gateways.map((g) => ({ ...g, serves: target ? servesChange(g.record, target) : null })),
    unreadable: read.unreadable,
  };
}

export interface GatewayWait {
  /** Milliseconds from the start of the wait until every live gateway served the change (or the timeout). */
  waitedMs: number;
  /** Live gateways that serve the change. */
  ready: PresenceRecord[];
  /** Live gateways that did not serve it when the wait ended (empty unless it timed out). */
  laggards: PresenceRecord[];
  /** The records could not be read when the wait ended (storage trouble): the reason. */
  unreadable: string | null;
}

/**
 * Waits until every gateway that is not gone serves `target` (servesChange), or `timeoutMs`. Live
 * gateways are taken afresh at every read: one that stops (deletes its record) or goes quiet for
 * its missed intervals is no longer waited for, and one that starts is. Records older than
 * PRESENCE_FORGET_MS are removed on the first read.
 */
export async function waitForGateways(driver: StorageDriver, target: ChangeTarget, options: { timeoutMs: number; pollMs?: number }): Promise<GatewayWait> {
  const started = Date.now();
  let forgotten = false;
  for (;;) {
    let read: PresenceRead | null = null;
    let problem: string | null = null;
    try {
      read = await readPresence(driver);
    } catch (error) {
      problem = (error as Error).message;
    }
    if (read && !forgotten) {
      forgotten = true;
      for (const old of read.gateways.filter((g) => g.ageMs > PRESENCE_FORGET_MS)) await driver.delete(storeLayout.gateway(old.record.gateway)).catch(() => {});
    }
    const live = read?.gateways.filter((g) => !g.gone).map((g) => g.record) ?? [];
    const behind = live.filter((record) => {
      const serves = servesChange(record, target);
      return !serves.auth || !serves.decks;
    });
    const waitedMs = Date.now() - started;
    if (read && behind.length === 0) return { waitedMs, ready: live, laggards: [], unreadable: null };
    if (waitedMs >= options.timeoutMs) {
      return { waitedMs, ready: live.filter((r) => !behind.includes(r)), laggards: behind, unreadable: read ? null : problem };
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.pollMs ?? PRESENCE_POLL_MS, Math.max(1, options.timeoutMs - waitedMs))));
  }
}
