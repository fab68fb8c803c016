import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { readPointer, watchStorage, type StorageDriver } from '@snapdeck/snapshot';
import { ResolvedDeckCache } from '../decks/resolved-cache.ts';
import { StoreUnavailableError, type StoreLease, type StoreRefusal, type StoreSource, type StoreStatus } from '../source.ts';
import { DamagedObjects, OutageLog, Refusals, WaitingOutDamage, followerStatus } from './follower-health.ts';
import type { StoreFollowerOptions } from './follower-options.ts';
import { DecksFiles } from './follower-decks.ts';
import { PollLoop } from './follower-poll.ts';
import { CacheFolder } from './follower-record.ts';
import { FollowedView, OpenPart, closeView, leaseOn, retireReplaced } from './follower-view.ts';
import { storeLayout, type PartRef, type StoreManifest, type StorePart } from './layout.ts';
import { fetchPart } from './part-fetch.ts';
import { StoreDamagedError, hasPart } from './parts.ts';
import { readStoreManifest } from './publish.ts';
import { StorePresence, retiredPartsDrained, servedStateOf } from './presence.ts';
import { orderOf, positionOf, type StorePosition } from './version-order.ts';

export type { StoreFollowerOptions } from './follower-options.ts';

/**
 * `serve --store LOCATION`: follows the published store (published/layout.ts). Every `pollMs` the
 * pointer is read; a new version's auth part (small) is downloaded, checked and swapped in at
 * once, paired with the decks already loaded; a new decks part downloads in the background and
 * is swapped in when whole and checked. So a key or token change is served within a poll plus a
 * small download whatever the number of decks, and deck changes within their download time.
 * Versions only move forward (version-order.ts): a pointer naming a version older than (or
 * unrelated to) one served, which the cache folder remembers across restarts, is refused, logged
 * once, counted and shown in status(), and the served version kept.
 * A failed read or download is tried again at the next poll; only bytes that fail their checks
 * are put aside, for a backoff (follower-health.ts), and never opened. While storage is
 * unreachable the last version keeps being served and its age grows.
 */
export class StoreFollower implements StoreSource {
  private current: FollowedView | null = null;
  private checkedAt: number | null = null;
  private problem: string | null = 'no store version loaded yet';
  private closed = false;
  private cache!: CacheFolder;
  /** The newest manifest whose decks are not served yet: fetched in the background, again at each poll until they are. */
  private wantedDecks: StoreManifest | null = null;
  private decksDownload: Promise<void> | null = null;
  private installing: Promise<void> = Promise.resolve();
  private lastManifest: StoreManifest | null = null;
  /** The first poll is done and the cache folder cleared of what no view uses. */
  private startedUp = false;
  /** The newest version served (the cache folder's record remembers it across restarts). */
  private served: StorePosition | null = null;
  private refused: StoreRefusal | null = null;
  /** Bytes of part objects downloaded since start (status(), the store benchmark). */
  private downloadedBytes = 0;
  private readonly loop: PollLoop;
  private readonly damaged = new DamagedObjects();
  private readonly pointerOutage: OutageLog;
  private readonly decksOutage: OutageLog;
  private readonly refusals: Refusals;
  private readonly presence: StorePresence; // what this gateway serves, told to writers (a purge waits for it)
  private readonly decksFiles: DecksFiles;
  private readonly driver: StorageDriver; // polls (pointer, manifest): each read bounded by the poll timeout
  private readonly downloads: StorageDriver; // parts: longer than a poll may take; the client's idle timeout bounds them
  private readonly zones = new ResolvedDeckCache(); // every view's decks keep their zones until their updatedAt changes

  constructor(driver: StorageDriver, private readonly options: StoreFollowerOptions = {}) {
    this.driver = options.polls ?? watchStorage(driver, { timeoutMs: options.pollTimeoutMs ?? OPERATOR_DEFAULTS.storePollTimeoutMs });
    this.downloads = driver;
    this.loop = new PollLoop(() => this.refreshOnce(), options.pollMs ?? OPERATOR_DEFAULTS.storePollMs);
    this.pointerOutage = new OutageLog(options.log, `the store at ${driver.location}`, options.reportedOutage);
    this.decksOutage = new OutageLog(options.log, `the decks part download from ${driver.location}`, options.reportedOutage);
    this.refusals = new Refusals(options.log, driver.location);
    this.decksFiles = new DecksFiles(this.downloads, (error) => options.log?.warn({ err: error }, 'store: could not prepare a spare decks file; the next decks change copies the served one'));
    this.presence = new StorePresence(driver, { cacheDir: options.cacheDir, intervalMs: options.presenceMs, log: options.log });
  }

  /** Loads what the cache folder holds (if anything), tries storage once, then follows it. */
  async start(): Promise<void> {
    this.cache = await CacheFolder.open(this.options.cacheDir);
    await this.presence.identify();
    await this.loadFromCache().catch((error: unknown) => this.options.log?.warn({ err: error }, 'store: the cache folder holds no usable version'));
    // Waited for, so that a gateway with a reachable store starts ready (within startWaitMs).
    await this.loop.start(this.options.startWaitMs ?? 30_000, () => this.removeUnusedFiles());
  }

  private async loadFromCache(): Promise<void> {
    const found = await this.cache.openSaved((disposed) => this.decksFiles.keep(disposed), this.zones);
    // Remembered even when its files are gone: an older pointer stays refused after a restart.
    if (found) this.served = found.saved.position;
    const view = found?.view;
    if (!view) return;
    this.current = view;
    this.presence.served(servedStateOf(view), retiredPartsDrained(null, view));
    this.checkedAt = found.saved.checkedAt;
    this.options.log?.info({ version: view.version, decksVersion: view.decksVersion }, 'store: serving the version in the cache folder until storage answers');
  }

  /** Reads the pointer and applies a new version; never throws (failures are kept in `problem`). */
  refresh(): Promise<void> {
    return this.loop.run();
  }

  /** One look at storage; false when storage could not be reached (the loop tries again soon). */
  private async refreshOnce(): Promise<boolean> {
    try {
      const pointer = await readPointer(this.driver, storeLayout.pointer);
      if (!pointer) {
        this.problem = `no store has been published at ${this.driver.location}`;
        return true;
      }
      const refusal = this.refusals.get(pointer.version);
      if (this.current?.version === pointer.version || refusal) {
        this.confirmed(refusal);
        await this.catchUpDecks();
        return true;
      }
      const manifest = await this.manifest(pointer.version);
      if (this.closed) return true;
      const order = orderOf(this.served, positionOf(manifest));
      if (order === 'older' || order === 'unrelated') {
        this.confirmed(this.refusals.refuse(manifest.version, order, this.served!.version));
        return true;
      }
      await this.apply(manifest);
      this.confirmed(null);
      return true;
    } catch (error) {
      this.failed(error, this.pointerOutage, 'a published version failed its checks and is NOT used; the previous one is kept');
      return error instanceof StoreDamagedError || error instanceof WaitingOutDamage;
    }
  }

  /** A version's manifest; the last one read is kept (immutable), so a retry reads only what failed. */
  private async manifest(version: string): Promise<StoreManifest> {
    if (this.lastManifest?.version === version) return this.lastManifest;
    const manifest = await this.damaged.read(`manifest ${version}`, () => readStoreManifest(this.driver, version));
    this.lastManifest = manifest;
    return manifest;
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

  /** A part's file, from the cache folder, else made from the decks files held plus what they lack (follower-decks.ts), else downloaded. */
  private async openPart(part: StorePart, ref: PartRef): Promise<OpenPart> {
    const file = this.cache.partFile(part, ref);
    let made: { downloaded: number; hashes?: Buffer; changed?: { from: string; pages: number[] } } | undefined;
    if (part === 'decks') this.decksFiles.claim(file);
    if (!(await hasPart(file, ref))) {
      const got = await this.damaged.read(`${part} ${ref.sha256}`, () =>
        part === 'decks' ? this.decksFiles.make(ref, file, this.current?.deckPart) : fetchPart(this.downloads, part, ref, file).then(({ downloaded }) => ({ downloaded })));
      this.downloadedBytes += got.downloaded;
      made = got;
    }
    return Object.assign(new OpenPart(part, ref, file), { pageHashes: made?.hashes, changedFrom: made?.changed, onDisposed: part === 'decks' ? (disposed: OpenPart) => this.decksFiles.keep(disposed) : undefined });
  }

  private async apply(manifest: StoreManifest): Promise<void> {
    const version = manifest.version;
    const position = positionOf(manifest);
    const current = this.current;
    const auth = current && current.auth.ref.sha256 === manifest.parts.auth.sha256 ? current.auth : await this.openPart('auth', manifest.parts.auth);
    const decks = current ? null : await this.openPart('decks', manifest.parts.decks).catch((error: unknown) => {
      auth.db.close();
      throw error;
    });
    await this.install((now) => {
      if (!now) return new FollowedView(auth, decks!, position, version, this.zones);
      if (now.deckPart.ref.sha256 === manifest.parts.decks.sha256) {
        this.wantedDecks = null;
        return new FollowedView(auth, now.deckPart, position, version, this.zones);
      }
      // Keys and tokens now; the decks when they have arrived (the auth part does not depend on them).
      this.wantedDecks = manifest;
      return new FollowedView(auth, now.deckPart, position, now.decksVersion, this.zones);
    });
    this.resumeDecks();
    if (!current) this.prepareSpare();
    this.options.log?.info({ version, decksVersion: this.current?.decksVersion }, 'store: now serving version');
  }

  /** Served keys ahead of their decks with no download under way (a restart, a failure): fetch them again. */
  private async catchUpDecks(): Promise<void> {
    const now = this.current;
    if (now && !this.wantedDecks && !this.decksDownload && now.decksVersion !== now.version) {
      const manifest = await this.manifest(now.version);
      if (manifest.parts.decks.sha256 !== now.deckPart.ref.sha256) this.wantedDecks = manifest;
      else await this.install((latest) => (latest === now ? new FollowedView(now.auth, now.deckPart, now.position, now.version, this.zones) : null));
    }
    this.resumeDecks();
  }

  /** Starts fetching the wanted decks unless they are served or already on their way. */
  private resumeDecks(): void {
    const wanted = this.wantedDecks;
    if (!wanted || this.decksDownload || this.closed || !this.current) return;
    const ref = wanted.parts.decks;
    this.decksDownload = this.openPart('decks', ref)
      .then(async (decks) => {
        let installed = false;
        await this.install((now) => {
          // Wanted no more (a newer version names other decks, or the follower closed): let them go.
          const named = this.wantedDecks;
          if (!now || this.closed || named?.parts.decks.sha256 !== ref.sha256) return null;
          this.wantedDecks = null;
          installed = true;
          return new FollowedView(now.auth, decks, now.position, named.version, this.zones);
        });
        if (!installed) {
          if (this.current?.deckPart.file === decks.file) decks.db.close();
          else decks.retire();
          return;
        }
        this.decksOutage.succeeded();
        this.options.log?.info({ decksVersion: this.current?.decksVersion }, 'store: decks of the version now served');
      })
      .catch((error: unknown) => this.failed(error, this.decksOutage, 'the decks of a published version failed their checks; the previous decks are kept'))
      .finally(() => (this.decksDownload = null));
  }

  /**
   * Makes `make(current)` the view served, one install at a time (a decks download and a poll may
   * finish together): the cache folder's record is written first, so a restart at any point
   * serves this view or the one before it, and the files it replaces are removed only after.
   */
  private install(make: (current: FollowedView | null) => FollowedView | null): Promise<void> {
    const run = this.installing.then(async () => {
      const next = make(this.current);
      if (!next) return;
      await this.cache.write({ position: next.position, decksVersion: next.decksVersion, parts: { auth: next.auth.ref, decks: next.deckPart.ref }, checkedAt: Date.now() });
      const old = this.current;
      this.current = next;
      this.served = next.position;
      this.presence.served(servedStateOf(next), retiredPartsDrained(old, next));
      retireReplaced(old, next);
    });
    this.installing = run.catch(() => {});
    return run;
  }

  /** Part files in the cache folder that no view uses (left by an earlier run): removed; then the spare can be made. */
  private async removeUnusedFiles(): Promise<void> {
    await this.cache.removeUnused(new Set([this.current?.auth.file, this.current?.deckPart.file]), this.decksDownload !== null);
    this.startedUp = true;
    this.prepareSpare();
  }

  /** The first decks served since start: its page hashes and a spare, made in the background (follower-decks.ts). */
  private prepareSpare(): void {
    if (this.startedUp && this.current && !this.closed) this.decksFiles.prepare(this.current.deckPart);
  }

  /** Waits for a decks download or spare in progress (tests, benchmarks). */
  async settled(): Promise<void> {
    await this.loop.idle();
    await this.decksDownload;
    await this.decksFiles.prepared();
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
    const { driver: { location }, options: { maxAgeMs }, problem, refused, downloadedBytes } = this;
    return followerStatus(this.current, this.ageMs(), { location, maxAgeMs, problem, refused, refusedPointers: this.refusals.count, downloadedBytes });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.loop.stop();
    await this.decksDownload;
    await this.decksFiles.prepared();
    closeView(this.current);
    this.current = null;
    await this.presence.close();
    await this.cache?.remove();
  }
}
