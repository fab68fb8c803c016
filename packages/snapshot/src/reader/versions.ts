import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../hash.ts';
import { INDEX_FILE, VERSION_PATTERN, layout, manifestSchema } from '../layout.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import { decodeIndex } from '../pack.ts';
import { listSizes } from '../storage/inspect.ts';
import { SnapshotError } from './errors.ts';
import { VersionListing } from './version-listing.ts';
import { SnapshotVersion, type VersionFiles } from './version.ts';

/** A version being loaded or loaded: `settled` once `loading` has resolved, with its value. */
interface VersionEntry {
  loading: Promise<SnapshotVersion | null>;
  settled: boolean;
  value: SnapshotVersion | null;
}

/** A version marked gone (deleted while loaded) is treated as absent. */
const live = (version: SnapshotVersion | null) => (version && !version.gone ? version : null);

/**
 * Loaded versions, a bounded number of them (each holds its index in memory). A cached version is
 * re-checked (its manifest still there?) at most once per `recheckMs`, so a version removed by
 * `snapdeck gc` is noticed and its cursors turn invalid.
 *
 * Only versions that exist take a place, and whether one exists is first asked of a listing of the
 * game's versions (version-listing.ts): otherwise anyone, without a key, could push the kept
 * versions out with well-formed made-up names, each costing a storage request, and make every
 * partner walking an older version pay for reloading it.
 */
export class VersionCache {
  private readonly entries: LRUCache<string, VersionEntry>;
  /** When each cached version was last seen in storage (bounded like `entries`). */
  private readonly seenAt = new LRUCache<string, number>({ max: 1024 });
  /** First loads under way, so that concurrent requests for a version share one. */
  private readonly pending = new Map<string, Promise<SnapshotVersion | null>>();
  private readonly listing: VersionListing;

  constructor(private readonly files: VersionFiles, maxVersions: number, private readonly recheckMs: number) {
    this.entries = new LRUCache({ max: maxVersions, ttl: 0 });
    this.listing = new VersionListing(files.driver, recheckMs);
  }

  /** A specific version, or null when it does not exist (never built, or deleted). */
  get(game: string, version: string): MaybePromise<SnapshotVersion | null> {
    if (!VERSION_PATTERN.test(version)) return null;
    const key = `${game}/${version}`;
    const entry = this.entries.get(key);
    if (!entry) return this.firstLoad(key, game, version);
    if (Date.now() - (this.seenAt.get(key) ?? 0) < this.recheckMs) return entry.settled ? live(entry.value) : entry.loading.then(live);
    const previous = entry.loading;
    const loading = (async () => {
      const loaded = live(await previous);
      if (!(await this.files.driver.head(layout.manifest(game, version)))) return null;
      return loaded ?? this.load(game, version);
    })();
    this.seenAt.set(key, Date.now());
    const fresh: VersionEntry = { loading, settled: false, value: null };
    this.entries.set(key, fresh);
    loading.then(
      (value) => {
        fresh.settled = true;
        fresh.value = value;
        // Gone since it was loaded: its place goes to versions that exist.
        if (!value && this.entries.get(key) === fresh) this.entries.delete(key);
      },
      // A failure is not remembered: the next request tries storage again.
      () => this.entries.get(key) === fresh && this.entries.delete(key),
    );
    return loading;
  }

  /** A version not cached: loaded when the game's listing has it, once however many ask. */
  private firstLoad(key: string, game: string, version: string): Promise<SnapshotVersion | null> {
    const under = this.pending.get(key);
    if (under) return under;
    const loading = (async () => ((await this.listing.has(game, version)) ? this.load(game, version) : null))();
    this.pending.set(key, loading);
    loading.then(
      (value) => {
        this.pending.delete(key);
        if (!value) return;
        this.seenAt.set(key, Date.now());
        this.entries.set(key, { loading, settled: true, value });
      },
      // A failure is not remembered: the next request tries storage again.
      () => this.pending.delete(key),
    );
    return loading;
  }

  /**
   * Reads and checks a version: its manifest names it, its index matches the manifest's checksum,
   * and every file the manifest names is there at its size (one listing): a version being
   * deleted, or never finished, is not served.
   */
  private async load(game: string, version: string): Promise<SnapshotVersion | null> {
    const { driver, onError } = this.files;
    const manifestObject = await driver.get(layout.manifest(game, version));
    if (!manifestObject) return null;
    const manifest = manifestSchema.parse(JSON.parse(Buffer.from(manifestObject.body).toString('utf8')));
    if (manifest.game !== game || manifest.version !== version) {
      throw new SnapshotError(`${layout.manifest(game, version)} describes ${manifest.game}/${manifest.version}`);
    }
    const indexObject = await driver.get(layout.file(game, version, INDEX_FILE));
    const expected = manifest.files[INDEX_FILE];
    if (!indexObject || !expected) throw new SnapshotError(`${game}/${version}: index is missing`);
    if (sha256Hex(indexObject.body) !== expected.sha256) throw new SnapshotError(`${game}/${version}: index checksum does not match the manifest`);
    const present = await listSizes(driver, layout.versionPrefix(game, version));
    const bad = Object.entries(manifest.files).filter(([name, file]) => present.get(layout.file(game, version, name)) !== file.size);
    if (bad.length > 0) {
      onError?.(new SnapshotError(`${game}/${version}: ${bad.length} file(s) missing or of the wrong size, e.g. ${bad[0]![0]}`), `loading ${game}/${version}`);
      return null;
    }
    return new SnapshotVersion(this.files, manifest, decodeIndex(indexObject.body));
  }
}
