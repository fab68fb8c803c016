import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { deriveCursorKey, parseCursor, verifyCursor, encodeCursor, type CursorPosition } from './cursor.ts';
import { INDEX_FILE, LOCATION_SECRET_KEY, PACK_CARDS, PACK_HITS, VERSION_PATTERN, layout, manifestSchema, pagesPack, pointerSchema, type Encoding, type Manifest } from './layout.ts';
import { andThen, type MaybePromise } from './maybe-promise.ts';
import { decodeIndex, type PackEntries, type VersionIndex } from './pack.ts';
import { compressBrotli, compressGzip, contentTag, pageBody, pageTag } from './render.ts';
import { ObjectNotFoundError, type StorageDriver } from './storage/driver.ts';
import { listSizes } from './storage/inspect.ts';

/** Bytes ready to send, with the entity tag of their identity form. */
export interface Body {
  bytes: Uint8Array;
  etag: string;
  encoding: Encoding;
}

export interface SnapshotStoreOptions {
  /** Bytes of page and card bodies kept in memory. */
  cacheBytes?: number;
  /** How long a game's current-version pointer is trusted before it is read again. */
  pointerTtlMs?: number;
  /** Loaded versions kept per store (each holds its index in memory). */
  maxVersions?: number;
  onError?: (error: unknown, context: string) => void;
}

/** A version being loaded or loaded: `settled` once `loading` has resolved, with its value. */
interface VersionEntry {
  loading: Promise<SnapshotVersion | null>;
  settled: boolean;
  value: SnapshotVersion | null;
}

interface PointerState {
  version: SnapshotVersion | null;
  checkedAt: number;
  refreshing: Promise<void> | null;
}

export class SnapshotError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SnapshotError';
  }
}

/**
 * A loaded version's files are gone from storage (deleted by `snapdeck gc`): its cursors are
 * invalid (400 `Invalid cursor`), and a request for the current version should look again.
 */
export class VersionGoneError extends SnapshotError {
  constructor(readonly game: string, readonly version: string, options?: { cause?: unknown }) {
    super(`${game}/${version} was deleted from storage while it was loaded`, options);
    this.name = 'VersionGoneError';
  }
}

/**
 * The gateway's view of a snapshot location: the current version of each game (re-read every
 * `pointerTtlMs`, so a new build is served without a restart), older versions on demand (walks in
 * progress finish on the version they started), and a byte-bounded cache of bodies.
 */
export class SnapshotStore {
  readonly cache: LRUCache<string, Uint8Array>;
  private readonly pointers = new Map<string, PointerState>();
  private readonly versions: LRUCache<string, VersionEntry>;
  private readonly pending = new Map<string, Promise<Uint8Array>>();
  private readonly pointerTtlMs: number;
  readonly stats = { hits: 0, misses: 0 };
  private secret: Promise<Buffer | null> | undefined;
  private secretValue: Buffer | undefined;
  private readonly cursorKeys = new LRUCache<string, Buffer>({ max: 1024 });

  /** The location's cursor secret (null for a location built before it existed), read once. */
  locationSecret(): MaybePromise<Buffer | null> {
    if (this.secretValue) return this.secretValue;
    if (!this.secret) {
      this.secret = this.driver.get(LOCATION_SECRET_KEY).then((object) => (object ? Buffer.from(object.body) : null));
      // Not remembered when storage failed, nor while absent (a first build may create it).
      this.secret.then((value) => (value ? (this.secretValue = value) : (this.secret = undefined)), () => (this.secret = undefined));
    }
    return this.secret;
  }

  /** The key signing a version's cursors, derived from the location's secret (remembered per version). */
  cursorKey(secret: Buffer, game: string, version: string): Buffer {
    const id = `${game}/${version}`;
    let key = this.cursorKeys.get(id);
    if (!key) {
      key = deriveCursorKey(secret, game, version);
      this.cursorKeys.set(id, key);
    }
    return key;
  }

  /** Cursors whose signature was already checked, so a repeated one costs a map lookup. */
  readonly verifiedCursors = new LRUCache<string, CursorPosition>({ max: 100_000 });

  constructor(readonly driver: StorageDriver, private readonly options: SnapshotStoreOptions = {}) {
    this.cache = new LRUCache<string, Uint8Array>({
      maxSize: options.cacheBytes ?? 128 * 1024 * 1024,
      sizeCalculation: (value, key) => value.byteLength + key.length + 64,
    });
    this.versions = new LRUCache({ max: options.maxVersions ?? 16, ttl: 0 });
    this.pointerTtlMs = options.pointerTtlMs ?? 1000;
  }

  /**
   * The current version of a game, or null when none was ever published. A stale pointer is
   * refreshed in the background while the version already loaded keeps being served.
   */
  current(game: string): MaybePromise<SnapshotVersion | null> {
    let state = this.pointers.get(game);
    if (!state) {
      state = { version: null, checkedAt: 0, refreshing: null };
      this.pointers.set(game, state);
    }
    const stale = Date.now() - state.checkedAt >= this.pointerTtlMs;
    if (stale && !state.refreshing) state.refreshing = this.refreshPointer(game, state);
    if (state.version === null && state.refreshing) return state.refreshing.then(() => state!.version);
    return state.version;
  }

  private async refreshPointer(game: string, state: PointerState): Promise<void> {
    try {
      const object = await this.driver.get(layout.pointer(game));
      if (object) {
        const pointer = pointerSchema.parse(JSON.parse(Buffer.from(object.body).toString('utf8')));
        if (state.version?.version !== pointer.version) {
          const loaded = await this.version(game, pointer.version);
          if (!loaded) throw new SnapshotError(`${game}: current version ${pointer.version} cannot be loaded`);
          state.version = loaded;
        }
      }
      state.checkedAt = Date.now();
    } catch (error) {
      // Keep serving what is loaded; try again on a later request.
      this.options.onError?.(error, `refreshing the current version of ${game}`);
      if (state.version === null) throw error;
    } finally {
      state.refreshing = null;
    }
  }

  /** When each cached version was last seen in storage (bounded like `versions`). */
  private readonly versionSeenAt = new LRUCache<string, number>({ max: 1024 });

  /**
   * A specific version, or null when it does not exist (never built, or deleted). A cached version
   * that is not a game's current one is re-checked (its manifest still there?) at most once per
   * `pointerTtlMs`, so a version removed by `snapdeck gc` is noticed and its cursors turn invalid.
   */
  version(game: string, version: string): MaybePromise<SnapshotVersion | null> {
    if (!VERSION_PATTERN.test(version)) return null;
    // A walk in progress is almost always on the current version: no cache lookup for it.
    const current = this.pointers.get(game)?.version;
    if (current?.version === version) return current;
    const key = `${game}/${version}`;
    const entry = this.versions.get(key);
    let loading: Promise<SnapshotVersion | null>;
    if (entry) {
      if (Date.now() - (this.versionSeenAt.get(key) ?? 0) < this.pointerTtlMs) return entry.settled ? entry.value : entry.loading;
      const previous = entry.loading;
      loading = (async () => {
        const loaded = await previous;
        if (!(await this.driver.head(layout.manifest(game, version)))) return null;
        return loaded ?? this.loadVersion(game, version);
      })();
    } else {
      loading = this.loadVersion(game, version);
    }
    this.versionSeenAt.set(key, Date.now());
    const fresh: VersionEntry = { loading, settled: false, value: null };
    this.versions.set(key, fresh);
    loading.then(
      (value) => {
        fresh.settled = true;
        fresh.value = value;
      },
      // A failure is not remembered: the next request tries storage again.
      () => this.versions.get(key) === fresh && this.versions.delete(key),
    );
    return loading;
  }

  private async loadVersion(game: string, version: string): Promise<SnapshotVersion | null> {
    const manifestObject = await this.driver.get(layout.manifest(game, version));
    if (!manifestObject) return null;
    const manifest = manifestSchema.parse(JSON.parse(Buffer.from(manifestObject.body).toString('utf8')));
    if (manifest.game !== game || manifest.version !== version) {
      throw new SnapshotError(`${layout.manifest(game, version)} describes ${manifest.game}/${manifest.version}`);
    }
    const indexObject = await this.driver.get(layout.file(game, version, INDEX_FILE));
    const expected = manifest.files[INDEX_FILE];
    if (!indexObject || !expected) throw new SnapshotError(`${game}/${version}: index is missing`);
    const sha256 = createHash('sha256').update(indexObject.body).digest('hex');
    if (sha256 !== expected.sha256) throw new SnapshotError(`${game}/${version}: index checksum does not match the manifest`);
    // Every file the manifest names must be there, at its size (one listing): a version being
    // deleted, or never finished, is not served.
    const present = await listSizes(this.driver, layout.versionPrefix(game, version));
    const bad = Object.entries(manifest.files).filter(([name, file]) => present.get(layout.file(game, version, name)) !== file.size);
    if (bad.length > 0) {
      this.options.onError?.(new SnapshotError(`${game}/${version}: ${bad.length} file(s) missing or of the wrong size, e.g. ${bad[0]![0]}`), `loading ${game}/${version}`);
      return null;
    }
    return new SnapshotVersion(this, manifest, decodeIndex(indexObject.body));
  }

  /**
   * Called when reading a loaded version's file failed. When the file is missing and so is the
   * version's manifest (gc deletes it first), the version was deleted: it is forgotten (its cursors
   * turn invalid at once, and a game whose current version it was reads its pointer again) and
   * VersionGoneError is thrown. Anything else (storage unreachable, a file alone missing) rethrows.
   */
  async readFailed(game: string, version: string, error: unknown): Promise<never> {
    if (!(error instanceof ObjectNotFoundError)) throw error;
    let manifest;
    try {
      manifest = await this.driver.head(layout.manifest(game, version));
    } catch {
      throw error;
    }
    if (manifest) throw error;
    const key = `${game}/${version}`;
    this.versions.set(key, { loading: Promise.resolve(null), settled: true, value: null });
    this.versionSeenAt.set(key, Date.now());
    const state = this.pointers.get(game);
    if (state?.version?.version === version) {
      state.version = null;
      state.checkedAt = 0;
    }
    this.options.onError?.(error, `${key} is gone from storage: its cursors are now invalid`);
    throw new VersionGoneError(game, version, { cause: error });
  }

  /** Bytes of one object range, from the cache or (once, however many ask at the same time) storage. */
  read(key: string, offset: number, length: number): MaybePromise<Uint8Array> {
    const cacheKey = `${key}@${offset}+${length}`;
    const cached = this.cache.get(cacheKey);
    if (cached) {
      this.stats.hits += 1;
      return cached;
    }
    return this.shared(cacheKey, async () => {
      this.stats.misses += 1;
      return this.driver.getRange(key, offset, length);
    });
  }

  /** Runs `load` once for concurrent callers of the same key and caches its result. */
  shared(cacheKey: string, load: () => Promise<Uint8Array>): MaybePromise<Uint8Array> {
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    let pending = this.pending.get(cacheKey);
    if (!pending) {
      pending = load()
        .then((bytes) => {
          this.cache.set(cacheKey, bytes);
          return bytes;
        })
        .finally(() => this.pending.delete(cacheKey));
      this.pending.set(cacheKey, pending);
    }
    return pending;
  }

  /** Games with a current version, for readiness checks and metrics. */
  loadedVersions(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [game, state] of this.pointers) if (state.version) out[game] = state.version.version;
    return out;
  }
}

export type CursorCheck =
  | { ok: true; version: SnapshotVersion; page: number }
  | { ok: false };

/** One immutable version of one game's snapshot. */
export class SnapshotVersion {
  readonly game: string;
  readonly version: string;
  readonly totalHits: number;
  private readonly cursorKey: Buffer;
  private readonly versionTag: string;
  private cardPositions: Map<string, number> | null = null;
  private readonly parsedCards = new LRUCache<string, Record<string, unknown>>({ max: 20_000 });

  constructor(private readonly store: SnapshotStore, readonly manifest: Manifest, private readonly index: VersionIndex) {
    this.game = manifest.game;
    this.version = manifest.version;
    this.totalHits = manifest.totalHits;
    this.cursorKey = Buffer.from(manifest.cursorKey, 'base64url');
    this.versionTag = contentTag(`${manifest.game}|${manifest.version}`).slice(0, 12);
  }

  pageCount(hitsPerPage: number): number {
    return Math.max(1, Math.ceil(this.totalHits / hitsPerPage));
  }

  isPrerendered(hitsPerPage: number): boolean {
    return this.index.pages[String(hitsPerPage)] !== undefined;
  }

  /** Entity tag of a page (the same for every encoding of it, before the encoding suffix). */
  pageTag(hitsPerPage: number, page: number): string {
    return pageTag(this.versionTag, hitsPerPage, page);
  }

  private file(pack: string, encoding: Encoding, segment: number): string {
    return layout.file(this.game, this.version, layout.segment(pack, encoding, segment));
  }

  /** A range of one of this version's files; VersionGoneError when the version was deleted. */
  private read(key: string, offset: number, length: number): MaybePromise<Uint8Array> {
    const bytes = this.store.read(key, offset, length);
    return bytes instanceof Promise ? bytes.catch((error: unknown) => this.store.readFailed(this.game, this.version, error)) : bytes;
  }

  private readEntry(pack: string, encoding: Encoding, entries: PackEntries, i: number): MaybePromise<Uint8Array> {
    return this.read(this.file(pack, encoding, entries.seg[i]!), entries.off[i]!, entries.len[i]!);
  }

  /**
   * One page of the walk. Pre-rendered pages come as stored, in the requested encoding; other
   * hitsPerPage values are assembled from the hits pack (a few range reads, no parsing) and
   * compressed once, then cached like any other body.
   */
  page(hitsPerPage: number, page: number, encoding: Encoding): MaybePromise<Body> {
    const etag = this.pageTag(hitsPerPage, page);
    const pages = this.index.pages[String(hitsPerPage)];
    const bytes = pages
      ? this.readEntry(pagesPack(hitsPerPage), encoding, pages.encodings[encoding], page)
      : this.store.shared(`${this.game}/${this.version}/assembled/${hitsPerPage}/${page}/${encoding}`, async () => {
          const identity = await this.assemblePage(hitsPerPage, page);
          if (encoding === 'br') return compressBrotli(identity);
          if (encoding === 'gzip') return compressGzip(identity);
          return identity;
        });
    return andThen(bytes, (ready) => ({ bytes: ready, etag, encoding }));
  }

  private async assemblePage(hitsPerPage: number, page: number): Promise<Buffer> {
    const from = page * hitsPerPage;
    const to = Math.min(this.totalHits, from + hitsPerPage);
    const hits = this.index.hits;
    // Consecutive hits of one segment are one range read (each hit is stored followed by ',').
    const reads: MaybePromise<Uint8Array>[] = [];
    let i = from;
    while (i < to) {
      const segment = hits.seg[i]!;
      let j = i;
      while (j + 1 < to && hits.seg[j + 1] === segment) j += 1;
      const start = hits.off[i]!;
      const end = hits.off[j]! + hits.len[j]! + 1;
      reads.push(this.read(this.file(PACK_HITS, 'identity', segment), start, end - start));
      i = j + 1;
    }
    const parts = await Promise.all(reads);
    const last = parts.length - 1;
    if (last >= 0) parts[last] = parts[last]!.subarray(0, parts[last]!.length - 1); // drop the final ','
    const next = page + 1 < this.pageCount(hitsPerPage) ? this.cursorFor(hitsPerPage, page + 1) : null;
    return pageBody(parts, next, this.totalHits);
  }

  cursorFor(hitsPerPage: number, page: number): string {
    return encodeCursor(this.cursorKey, { game: this.game, hitsPerPage, version: this.version, page });
  }

  verify(position: CursorPosition & { signature: Buffer; payload: string }): boolean {
    return verifyCursor(this.cursorKey, position);
  }

  private position(id: string): number | undefined {
    if (!this.cardPositions) {
      this.cardPositions = new Map(this.index.cards.ids.map((cardId, i) => [cardId, i]));
    }
    return this.cardPositions.get(id);
  }

  hasCard(id: string): boolean {
    return this.position(id) !== undefined;
  }

  /** The stored response body of GET /cards/{id}, or null when the card is not in this version. */
  card(id: string, encoding: Encoding): MaybePromise<Body | null> {
    const i = this.position(id);
    if (i === undefined) return null;
    return andThen(this.readEntry(PACK_CARDS, encoding, this.index.cards.encodings[encoding], i), (bytes) => ({ bytes, etag: this.index.cards.etags[i]!, encoding }));
  }

  /** The card as an object (decks need names, types and images), or null when it is not here. */
  async cardRecord(id: string): Promise<Record<string, unknown> | null> {
    const cached = this.parsedCards.get(id);
    if (cached) return cached;
    const body = await this.card(id, 'identity');
    if (!body) return null;
    const record = (JSON.parse(Buffer.from(body.bytes).toString('utf8')) as { data: Record<string, unknown> }).data;
    this.parsedCards.set(id, record);
    return record;
  }
}

const INVALID: CursorCheck = { ok: false };

/**
 * Resolves a client's cursor to the version and page it points at, checking signature, game and
 * hitsPerPage. Anything else (malformed, tampered, foreign, or for a version no longer kept) is
 * `{ ok: false }`. Synchronous when the version is loaded (the common case: a walk in progress).
 */
export function resolveCursor(store: SnapshotStore, token: string, game: string, hitsPerPage: number): MaybePromise<CursorCheck> {
  // A walk presents each cursor once, but CDNs and retries repeat them: remember verified ones.
  const known = store.verifiedCursors.get(token);
  if (known) return checkPosition(store, known, game, hitsPerPage);
  const parsed = parseCursor(token);
  // The game is checked before anything is loaded: only the caller's (validated) slug reaches storage.
  if (!parsed || parsed.game !== game) return INVALID;
  return andThen(store.locationSecret(), (secret) => {
    // The signature is checked before the version is loaded, so forged cursors naming made-up
    // versions cost no storage reads. The derived key is the one the version was built with
    // (publish.ts); locations built before the secret existed are checked with the manifest's key.
    if (secret && !verifyCursor(store.cursorKey(secret, game, parsed.version), parsed)) return INVALID;
    return andThen(store.version(game, parsed.version), (claimed) => {
      if (!claimed || (!secret && !claimed.verify(parsed))) return INVALID;
      const position = { game: parsed.game, hitsPerPage: parsed.hitsPerPage, version: parsed.version, page: parsed.page };
      store.verifiedCursors.set(token, position);
      return checkPosition(store, position, game, hitsPerPage);
    });
  });
}

function checkPosition(store: SnapshotStore, position: CursorPosition, game: string, hitsPerPage: number): MaybePromise<CursorCheck> {
  if (position.game !== game || position.hitsPerPage !== hitsPerPage) return INVALID;
  return andThen(store.version(game, position.version), (version): CursorCheck =>
    !version || position.page >= version.pageCount(hitsPerPage) ? INVALID : { ok: true, version, page: position.page },
  );
}
