import type { Db } from './db/database.ts';
import { DECK_CURSOR_SECRET, getOrCreateSecret } from './decks/secret.ts';
import { DeckStore } from './decks/store.ts';
import { KeyStore } from './keys/store.ts';

/**
 * Where a gateway reads keys, tokens and decks from: one local database (`serve --db`), or the
 * published store it follows (`serve --store`, published/follower.ts). A request takes a lease on
 * one view at its start and reads only that view until it has answered, so a version swap in the
 * middle of it cannot mix two versions; the follower removes a replaced version's files once no
 * lease holds it.
 */
export interface StoreView {
  keys: KeyStore;
  decks: DeckStore;
  /** Key that signs deck listing cursors (the same in every version of a store). */
  cursorKey: Buffer;
}

export interface StoreLease {
  view: StoreView;
  release(): void;
}

export interface StoreStatus {
  mode: 'db' | 'store';
  location: string;
  /** Loaded and fresh enough to answer. */
  ready: boolean;
  /** The store version whose keys and tokens are served (store mode). */
  version: string | null;
  /** The store version whose decks are served: older than `version` while newer decks download. */
  decksVersion: string | null;
  /** Seconds since storage last confirmed that `version` is current (store mode). */
  ageSeconds: number | null;
  /** Why it is not ready, or the last refresh failure. */
  problem: string | null;
  /** The served version's place in the store's history (store mode; null before sequences existed). */
  sequence: number | null;
  /**
   * The pointer names a version this gateway refuses, older than (or unrelated to) one it has
   * served (store mode): it keeps serving `version` and follows again once the pointer moves past.
   */
  refused: StoreRefusal | null;
  /** Distinct pointers refused since the start (store mode). */
  refusedPointers: number;
  /** Bytes of store parts downloaded since the start (store mode; a deck change costs its deltas). */
  downloadedBytes?: number;
}

export interface StoreRefusal {
  /** The version the pointer names. */
  version: string;
  reason: 'older' | 'unrelated';
  /** When this gateway first saw the pointer name it (ISO 8601). */
  since: string;
  message: string;
}

export interface StoreSource {
  /** A lease on the current view; throws (→ 500) when there is none to serve from. */
  acquire(): StoreLease;
  status(): StoreStatus;
  close(): Promise<void>;
}

/** The gateway has no store version to serve from (never loaded one, or too stale by its own rule). */
export class StoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/** `serve --db FILE`: one database, read and written in place (single-host mode). */
export class LocalStoreSource implements StoreSource {
  private readonly lease: StoreLease;

  constructor(private readonly db: Db, keys: KeyStore = new KeyStore(db)) {
    const view: StoreView = { keys, decks: new DeckStore(db), cursorKey: getOrCreateSecret(db, DECK_CURSOR_SECRET) };
    this.lease = { view, release: () => {} };
  }

  acquire(): StoreLease {
    return this.lease;
  }

  status(): StoreStatus {
    return {
      mode: 'db', location: this.db.name, ready: true, version: null, decksVersion: null, ageSeconds: null, problem: null,
      sequence: null, refused: null, refusedPointers: 0,
    };
  }

  async close(): Promise<void> {}
}
