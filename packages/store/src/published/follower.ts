import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { readPointer, type StorageDriver } from '@snapdeck/snapshot';
import { StoreUnavailableError, type StoreLease, type StoreRefusal, type StoreSource, type StoreStatus } from '../source.ts';
import { DamagedObjects, OutageLog, Refusals, type FollowerLog } from './follower-health.ts';
import { CacheFolder } from './follower-record.ts';
import { FollowedView, OpenPart, leaseOn, retireReplaced } from './follower-view.ts';
import { storeLayout, type PartRef, type StoreManifest, type StorePart } from './layout.ts';
import { StoreDamagedError, downloadPart, hasPart } from './parts.ts';
import { readStoreManifest } from './publish.ts';
import { orderOf, positionOf, type StorePosition } from './version-order.ts';

export interface StoreFollowerOptions {
  /** Folder for downloaded parts; default: a new temporary folder, removed on close. */
  cacheDir?: string;
  /** How often the pointer is read. Default OPERATOR_DEFAULTS.storePollMs, 1 s (key changes land within it plus a download). */
  pollMs?: number;
  /**
   * Fail closed: once storage has not confirmed the served version for this long, keyed
   * endpoints and GET /decks/{id} answer 500 and /readyz 503 (revocations may be unseen).
   * Default: never (keep serving the last version).
   */
  maxAgeMs?: number;
  /** Longest wait in start() for the first download (it goes on in the background). Default 30 s. */
  startWaitMs?: number;
  log?: FollowerLog;
}

/** A damaged object still waiting out its backoff: nothing was read, nothing new to log. */
class WaitingOutDamage extends Error {}

/**
 * `serve --store LOCATION`: follows the published store (published/layout.ts). Every `pollMs` the
 * pointer is read; a new version's auth part (small) is downloaded, checked and swapped in at
 * once, paired with the decks already loaded; a new decks part downloads in the background and
 * is swapped in when whole and checked. So a key or token change is served within a poll plus a
 * small download whatever the number of decks, and deck changes within their download time.
 * Versions only move forward (version-order.ts): a pointer naming a version older than (or
 * unrelated to) one served, which the cache folder remembers across restarts, is refused, logged
 * once, counted and shown in status(), and the served version kept.
 * A failed read or download is tried again at the next poll, so a hiccup costs a poll, not a
 * bound; only bytes that fail their checks are put aside, for a backoff (follower-health.ts). A
 * part whose checksums do not match is never opened. While storage is unreachable the last
 * version keeps being served and its age grows.
 */
export class StoreFollower implements StoreSource {
  private current: FollowedView | null = null;
  private checkedAt: number | null = null;
  private problem: string | null = 'no store version loaded yet';
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private cache!: CacheFolder;
  private refreshing: Promise<void> | null = null;
  /** The newest manifest whose decks are not served yet: fetched in the background, again at each poll until they are. */
  private wantedDecks: StoreManifest | null = null;
  private decksDownload: Promise<void> | null = null;
  /** The newest version served (the cache folder's record remembers it across restarts). */
  private served: StorePosition | null = null;
  private refused: StoreRefusal | null = null;
  private readonly pollMs: number;
  private readonly damaged = new DamagedObjects();
  private readonly pointerOutage: OutageLog;
  private readonly decksOutage: OutageLog;
  private readonly refusals: Refusals;

  constructor(private readonly driver: StorageDriver, private readonly options: StoreFollowerOptions = {}) {
    this.pollMs = options.pollMs ?? OPERATOR_DEFAULTS.storePollMs;
    this.pointerOutage = new OutageLog(options.log, `the store at ${driver.location}`);
    this.decksOutage = new OutageLog(options.log, `the decks part download from ${driver.location}`);
    this.refusals = new Refusals(options.log, driver.location);
  }

  /** Loads what the cache folder holds (if anything), tries storage once, then follows it. */
  async start(): Promise<void> {
    this.cache = await CacheFolder.open(this.options.cacheDir);
    await this.loadFromCache().catch((error: unknown) => this.options.log?.warn({ err: error }, 'store: the cache folder holds no usable version'));
    // The first look at storage: waited for (so a gateway with a reachable store starts ready),
    // but not for long: a store that hangs must not keep the gateway from listening, not ready.
    const first = this.refresh().then(() => this.removeUnusedFiles()).catch(() => {});
    void first.finally(() => this.schedule());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([first, new Promise((resolve) => (timer = setTimeout(resolve, this.options.startWaitMs ?? 30_000)))]);
    clearTimeout(timer);
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.refresh().finally(() => this.schedule());
    }, this.pollMs);
    this.timer.unref();
  }

  private async loadFromCache(): Promise<void> {
    const saved = await this.cache.read();
    if (saved === null) return;
    const { manifest } = saved;
    // Remembered even when its files are gone: an older pointer stays refused after a restart.
    this.served = positionOf(manifest);
    for (const part of ['auth', 'decks'] as const) {
      if (!(await hasPart(this.cache.partFile(part, manifest.parts[part]), manifest.parts[part]))) return;
    }
    const auth = new OpenPart('auth', manifest.parts.auth, this.cache.partFile('auth', manifest.parts.auth));
    const decks = new OpenPart('decks', manifest.parts.decks, this.cache.partFile('decks', manifest.parts.decks));
    this.swap(new FollowedView(auth, decks, positionOf(manifest), manifest.version));
    this.checkedAt = saved.checkedAt;
    this.options.log?.info({ version: manifest.version }, 'store: serving the version in the cache folder until storage answers');
  }

  /** Reads the pointer and applies a new version; never throws (failures are kept in `problem`). */
  refresh(): Promise<void> {
    return (this.refreshing ??= this.refreshOnce().finally(() => (this.refreshing = null)));
  }

  private async refreshOnce(): Promise<void> {
    try {
      const pointer = await readPointer(this.driver, storeLayout.pointer);
      if (!pointer) {
        this.problem = `no store has been published at ${this.driver.location}`;
        return;
      }
      const refusal = this.refusals.get(pointer.version);
      if (this.current?.version === pointer.version || refusal) {
        this.confirmed(refusal);
        this.resumeDecks();
        return;
      }
      const manifest = await this.read(`manifest ${pointer.version}`, () => readStoreManifest(this.driver, pointer.version));
      if (this.closed) return;
      const order = orderOf(this.served, positionOf(manifest));
      if (order === 'older' || order === 'unrelated') {
        this.confirmed(this.refusals.refuse(manifest.version, order, this.served!.version));
        return;
      }
      await this.apply(manifest);
      this.confirmed(null);
    } catch (error) {
      this.failed(error, this.pointerOutage, 'a published version failed its checks and is NOT used; the previous one is kept');
    }
  }

  /** Storage answered: the served version is the newest it names (`refused`: the pointer's, refused). */
  private confirmed(refused: StoreRefusal | null): void {
    this.checkedAt = Date.now();
    this.problem = null;
    this.refused = refused;
    this.pointerOutage.succeeded();
  }

  private failed(error: unknown, outage: OutageLog, damage: string): void {
    this.problem = (error as Error).message;
    if (error instanceof WaitingOutDamage) return;
    if (error instanceof StoreDamagedError) this.options.log?.error({ err: error }, `store: ${damage}`);
    else outage.failed(error);
  }

  /** Reads an object through the damage backoff: damaged bytes are put aside, failed reads are not. */
  private async read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const blocked = this.damaged.blocked(key);
    if (blocked) throw new WaitingOutDamage(blocked);
    try {
      const value = await load();
      this.damaged.clear(key);
      return value;
    } catch (error) {
      this.damaged.note(key, error);
      throw error;
    }
  }

  private async openPart(part: StorePart, ref: PartRef): Promise<OpenPart> {
    const file = this.cache.partFile(part, ref);
    if (!(await hasPart(file, ref))) await this.read(`${part} ${ref.sha256}`, () => downloadPart(this.driver, part, ref, file));
    return new OpenPart(part, ref, file);
  }

  private async apply(manifest: StoreManifest): Promise<void> {
    const version = manifest.version;
    const position = positionOf(manifest);
    const current = this.current;
    const auth = current && current.auth.ref.sha256 === manifest.parts.auth.sha256 ? current.auth : await this.openPart('auth', manifest.parts.auth);
    if (!current) {
      const decks = await this.openPart('decks', manifest.parts.decks).catch((error: unknown) => {
        auth.db.close();
        throw error;
      });
      this.swap(new FollowedView(auth, decks, position, version));
    } else if (current.deckPart.ref.sha256 === manifest.parts.decks.sha256) {
      this.wantedDecks = null;
      this.swap(new FollowedView(auth, current.deckPart, position, version));
    } else {
      // Keys and tokens now; the decks when they have arrived (the auth part does not depend on them).
      this.wantedDecks = manifest;
      this.swap(new FollowedView(auth, current.deckPart, position, current.decksVersion));
      this.resumeDecks();
    }
    if (this.current?.decksVersion === version) await this.cache.write(manifest);
    this.options.log?.info({ version, decksVersion: this.current?.decksVersion }, 'store: now serving version');
  }

  /** Starts fetching the wanted decks unless they are served or already on their way. */
  private resumeDecks(): void {
    const wanted = this.wantedDecks;
    if (!wanted || this.decksDownload || this.closed || !this.current) return;
    const ref = wanted.parts.decks;
    this.decksDownload = this.openPart('decks', ref)
      .then(async (decks) => {
        const now = this.current!;
        // Wanted no more (a newer version names other decks, or the follower closed): let them go.
        if (this.closed || this.wantedDecks?.parts.decks.sha256 !== ref.sha256) {
          if (now.deckPart.file === decks.file) decks.db.close();
          else decks.retire();
          return;
        }
        const named = this.wantedDecks;
        this.wantedDecks = null;
        this.swap(new FollowedView(now.auth, decks, now.position, named.version));
        if (now.version === named.version) await this.cache.write(named);
        this.decksOutage.succeeded();
        this.options.log?.info({ decksVersion: named.version }, 'store: decks of the version now served');
      })
      .catch((error: unknown) => this.failed(error, this.decksOutage, 'the decks of a published version failed their checks; the previous decks are kept'))
      .finally(() => (this.decksDownload = null));
  }

  private swap(next: FollowedView): void {
    const old = this.current;
    this.current = next;
    this.served = next.position;
    retireReplaced(old, next);
  }

  /** Part files in the cache folder that no view uses (left by an earlier run): removed. */
  private async removeUnusedFiles(): Promise<void> {
    await this.cache.removeUnused(new Set([this.current?.auth.file, this.current?.deckPart.file]), this.decksDownload !== null);
  }

  /** Waits for a decks download in progress (tests, benchmarks). */
  async settled(): Promise<void> {
    await this.refreshing;
    await this.decksDownload;
  }

  acquire(): StoreLease {
    const view = this.current;
    if (!view) throw new StoreUnavailableError(`no store version loaded: ${this.problem ?? 'not started'}`);
    if (this.options.maxAgeMs !== undefined && this.ageMs() > this.options.maxAgeMs) {
      throw new StoreUnavailableError(`store version ${view.version} was last confirmed ${Math.round(this.ageMs() / 1000)} s ago, more than the allowed ${this.options.maxAgeMs / 1000} s`);
    }
    return leaseOn(view);
  }

  private ageMs(): number {
    return this.checkedAt === null ? Infinity : Date.now() - this.checkedAt;
  }

  status(): StoreStatus {
    const view = this.current;
    const age = this.ageMs();
    const stale = this.options.maxAgeMs !== undefined && age > this.options.maxAgeMs;
    return {
      mode: 'store',
      location: this.driver.location,
      ready: view !== null && !stale,
      version: view?.version ?? null,
      decksVersion: view?.decksVersion ?? null,
      ageSeconds: Number.isFinite(age) ? Math.round(age / 100) / 10 : null,
      problem: view === null || stale || this.problem ? (stale ? `stale: last confirmed ${Math.round(age / 1000)} s ago` : this.problem) : null,
      sequence: view?.position.sequence ?? null,
      refused: this.refused,
      refusedPointers: this.refusals.count,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.refreshing;
    await this.decksDownload;
    const view = this.current;
    this.current = null;
    if (view) {
      view.auth.db.close();
      if (view.deckPart !== view.auth) view.deckPart.db.close();
    }
    await this.cache?.remove();
  }
}
