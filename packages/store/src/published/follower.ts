import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { readPointer, type StorageDriver } from '@snapdeck/snapshot';
import { StoreUnavailableError, type StoreLease, type StoreRefusal, type StoreSource, type StoreStatus } from '../source.ts';
import { FollowedView, OpenPart } from './follower-view.ts';
import { readLocalRecord, writeLocalRecord } from './follower-record.ts';
import { storeLayout, type PartRef, type StoreManifest, type StorePart } from './layout.ts';
import { StoreDamagedError, downloadPart, hasPart } from './parts.ts';
import { readStoreManifest } from './publish.ts';
import { orderOf, positionOf, type StorePosition } from './version-order.ts';

/** Refused pointers remembered (so that each is read and logged once): the last few are plenty. */
const REFUSALS_KEPT = 100;

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
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}


/**
 * `serve --store LOCATION`: follows the published store (published/layout.ts). Every `pollMs` the
 * pointer is read; a new version's auth part (small) is downloaded, checked and swapped in at
 * once, paired with the decks already loaded; a new decks part downloads in the background and
 * is swapped in when whole and checked. So a key or token change is served within a poll plus a
 * small download whatever the number of decks, and deck changes within their download time.
 * A part whose checksums do not match is never opened: it is logged and the previous one kept.
 * While storage is unreachable the last version keeps being served and its age grows.
 * Versions only move forward (version-order.ts): a pointer naming a version older than (or
 * unrelated to) one served, which the cache folder remembers across restarts, is refused, logged
 * once, counted and shown in status(), and the served version kept.
 */
export class StoreFollower implements StoreSource {
  private current: FollowedView | null = null;
  private checkedAt: number | null = null;
  private problem: string | null = 'no store version loaded yet';
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private cacheDir = '';
  private ownCacheDir = false;
  private refreshing: Promise<void> | null = null;
  private decksDownload: { sha256: string; promise: Promise<void> } | null = null;
  /** Versions found damaged: not retried until this time (a new publish makes a new version anyway). */
  private readonly rejected = new Map<string, number>();
  private readonly pollMs: number;
  /** The newest version served (the cache folder's record remembers it across restarts). */
  private served: StorePosition | null = null;
  private readonly refusals = new Map<string, StoreRefusal>();
  /** The refusal of the version the pointer names now, if it is refused. */
  private refused: StoreRefusal | null = null;
  private refusedPointers = 0;

  constructor(private readonly driver: StorageDriver, private readonly options: StoreFollowerOptions = {}) {
    this.pollMs = options.pollMs ?? OPERATOR_DEFAULTS.storePollMs;
  }

  /** Loads what the cache folder holds (if anything), tries storage once, then follows it. */
  async start(): Promise<void> {
    if (this.options.cacheDir) {
      this.cacheDir = this.options.cacheDir;
      await mkdir(join(this.cacheDir, 'parts'), { recursive: true });
    } else {
      this.cacheDir = await mkdtemp(join(tmpdir(), 'snapdeck-store-cache-'));
      this.ownCacheDir = true;
      await mkdir(join(this.cacheDir, 'parts'), { recursive: true });
    }
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

  private partFile(part: StorePart, ref: PartRef): string {
    return join(this.cacheDir, 'parts', `${part}-${ref.sha256}.db`);
  }

  private async loadFromCache(): Promise<void> {
    const saved = await readLocalRecord(this.cacheDir);
    if (saved === null) return;
    const { manifest } = saved;
    // Remembered even when its files are gone: an older pointer stays refused after a restart.
    this.served = positionOf(manifest);
    for (const part of ['auth', 'decks'] as const) {
      if (!(await hasPart(this.partFile(part, manifest.parts[part]), manifest.parts[part]))) return;
    }
    const auth = new OpenPart('auth', manifest.parts.auth, this.partFile('auth', manifest.parts.auth));
    const decks = new OpenPart('decks', manifest.parts.decks, this.partFile('decks', manifest.parts.decks));
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
      if (this.current?.version === pointer.version) {
        this.confirmed(null);
        return;
      }
      const known = this.refusals.get(pointer.version);
      if (known) {
        this.confirmed(known);
        return;
      }
      const rejectedUntil = this.rejected.get(pointer.version);
      if (rejectedUntil !== undefined && Date.now() < rejectedUntil) return;
      const manifest = await readStoreManifest(this.driver, pointer.version);
      if (this.closed) return;
      const order = orderOf(this.served, positionOf(manifest));
      if (order === 'older' || order === 'unrelated') {
        this.confirmed(this.refuse(manifest.version, order));
        return;
      }
      await this.apply(manifest);
      this.confirmed(null);
    } catch (error) {
      this.problem = (error as Error).message;
      if (error instanceof StoreDamagedError) {
        this.options.log?.error({ err: error }, 'store: a published version failed its checks and is NOT used; the previous one is kept');
      } else {
        this.options.log?.warn({ err: error }, 'store: refresh failed; the last version keeps being served');
      }
    }
  }

  /** Storage answered: the served version is the newest it names (`refused`: the pointer's, refused). */
  private confirmed(refused: StoreRefusal | null): void {
    this.checkedAt = Date.now();
    this.problem = null;
    this.refused = refused;
  }

  private refuse(version: string, reason: 'older' | 'unrelated'): StoreRefusal {
    const served = this.served!.version;
    const what = reason === 'older' ? `older than ${served}` : `of another store than ${served} (or another branch of it)`;
    const message = `the pointer at ${this.driver.location} names ${version}, ${what} which this gateway has served; ${served} keeps being served until the pointer moves past it`;
    const refusal: StoreRefusal = { version, reason, since: new Date().toISOString(), message };
    this.refusals.set(version, refusal);
    if (this.refusals.size > REFUSALS_KEPT) this.refusals.delete(this.refusals.keys().next().value!);
    this.refusedPointers += 1;
    this.options.log?.error({ pointer: version, served, reason }, `store: refusing a pointer that goes backwards: ${message}`);
    return refusal;
  }

  private async openPart(part: StorePart, ref: PartRef): Promise<OpenPart> {
    const file = this.partFile(part, ref);
    if (!(await hasPart(file, ref))) await downloadPart(this.driver, part, ref, file);
    return new OpenPart(part, ref, file);
  }

  private async apply(manifest: StoreManifest): Promise<void> {
    const version = manifest.version;
    const position = positionOf(manifest);
    try {
      const current = this.current;
      const auth = current && current.auth.ref.sha256 === manifest.parts.auth.sha256 ? current.auth : await this.openPart('auth', manifest.parts.auth);
      if (!current) {
        const decks = await this.openPart('decks', manifest.parts.decks);
        this.swap(new FollowedView(auth, decks, position, version));
      } else if (current.deckPart.ref.sha256 === manifest.parts.decks.sha256) {
        this.swap(new FollowedView(auth, current.deckPart, position, version));
      } else {
        // Keys and tokens now; the decks when they have arrived (the auth part does not depend on them).
        this.swap(new FollowedView(auth, current.deckPart, position, current.decksVersion));
        this.startDecksDownload(manifest);
      }
      if (this.current?.decksVersion === version) await this.saveLocalCurrent(manifest);
      this.options.log?.info({ version, decksVersion: this.current?.decksVersion }, 'store: now serving version');
    } catch (error) {
      this.rejected.set(version, Date.now() + 30_000);
      throw error;
    }
  }

  private startDecksDownload(manifest: StoreManifest): void {
    const ref = manifest.parts.decks;
    if (this.decksDownload?.sha256 === ref.sha256) return;
    const previous = this.decksDownload?.promise ?? Promise.resolve();
    const promise = previous.then(async () => {
      try {
        const decks = await this.openPart('decks', ref);
        const now = this.current!;
        // A newer version may already name yet other decks: then these are stale on arrival.
        this.swap(new FollowedView(now.auth, decks, now.position, manifest.version));
        if (now.version === manifest.version) await this.saveLocalCurrent(manifest);
        this.options.log?.info({ decksVersion: manifest.version }, 'store: decks of the version now served');
      } catch (error) {
        this.rejected.set(manifest.version, Date.now() + 30_000);
        this.problem = (error as Error).message;
        this.options.log?.error({ err: error }, 'store: the decks of a published version could not be loaded; the previous decks are kept');
      } finally {
        if (this.decksDownload?.promise === promise) this.decksDownload = null;
      }
    });
    this.decksDownload = { sha256: ref.sha256, promise };
  }

  private swap(next: FollowedView): void {
    const old = this.current;
    this.current = next;
    this.served = next.position;
    if (!old) return;
    for (const part of [old.auth, old.deckPart]) {
      if (part !== next.auth && part !== next.deckPart) {
        part.retired = true;
        part.disposeIfUnused();
      }
    }
  }

  private async saveLocalCurrent(manifest: StoreManifest): Promise<void> {
    await writeLocalRecord(this.cacheDir, manifest);
  }

  /** Part files in the cache folder that no view uses (left by an earlier run): removed. */
  private async removeUnusedFiles(): Promise<void> {
    const inUse = new Set([this.current?.auth.file, this.current?.deckPart.file]);
    const dir = join(this.cacheDir, 'parts');
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const file = join(dir, name);
      if (!inUse.has(file) && !(this.decksDownload && name.includes('.tmp-'))) await rm(file, { force: true });
    }
  }

  /** Waits for a decks download in progress (tests, benchmarks). */
  async settled(): Promise<void> {
    await this.refreshing;
    await this.decksDownload?.promise;
  }

  acquire(): StoreLease {
    const view = this.current;
    if (!view) throw new StoreUnavailableError(`no store version loaded: ${this.problem ?? 'not started'}`);
    if (this.options.maxAgeMs !== undefined && this.ageMs() > this.options.maxAgeMs) {
      throw new StoreUnavailableError(`store version ${view.version} was last confirmed ${Math.round(this.ageMs() / 1000)} s ago, more than the allowed ${this.options.maxAgeMs / 1000} s`);
    }
    view.auth.users += 1;
    view.deckPart.users += 1;
    let released = false;
    return {
      view,
      release: () => {
        if (released) return;
        released = true;
        view.auth.users -= 1;
        view.deckPart.users -= 1;
        view.auth.disposeIfUnused();
        view.deckPart.disposeIfUnused();
      },
    };
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
      refusedPointers: this.refusedPointers,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.refreshing;
    await this.decksDownload?.promise.catch(() => {});
    const view = this.current;
    this.current = null;
    if (view) {
      view.auth.db.close();
      if (view.deckPart !== view.auth) view.deckPart.db.close();
    }
    if (this.ownCacheDir) await rm(this.cacheDir, { recursive: true, force: true });
  }
}
