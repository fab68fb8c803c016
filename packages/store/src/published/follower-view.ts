import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DECK_CURSOR_SECRET } from '../decks/secret.ts';
import type { ResolvedDeckCache } from '../decks/resolved-cache.ts';
import { DeckStore } from '../decks/store.ts';
import { KeyStore } from '../keys/store.ts';
import type { StoreLease, StoreView } from '../source.ts';
import type { PartRef, StorePart } from './layout.ts';
import type { StorePosition } from './version-order.ts';

/** One part file opened read-only, shared by the views that name it; removed once retired and unused. */
export class OpenPart {
  users = 0;
  retired = false;
  /** Page hashes of the file, when known (page-hashes.ts): the next delta is applied without reading it. */
  pageHashes?: Buffer;
  /** The pages in which this file differs from the decks file `from` (when made from it by deltas: follower-decks.ts). */
  changedFrom?: { from: string; pages: number[] };
  readonly db: Database.Database;

  constructor(readonly part: StorePart, readonly ref: PartRef, readonly file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    // The file never changes: hold the shared lock from the first read on, instead of taking and
    // dropping it (and checking for a hot journal) around every statement. Measured on the
    // million-deck part: getDeck 70 µs → 48 µs, ahead of the writer's WAL database (63 µs).
    this.db.pragma('locking_mode = EXCLUSIVE');
  }

  /** No view will name it again: its file goes once no request holds it. */
  retire(): void {
    this.retired = true;
    this.disposeIfUnused();
  }

  /** Set for decks files: a file no view uses is kept as the follower's spare (follower-decks.ts) instead of removed. */
  onDisposed?: (part: OpenPart) => void;

  disposeIfUnused(): void {
    if (!this.retired || this.users > 0 || !this.db.open) return;
    this.db.close();
    if (this.onDisposed) this.onDisposed(this);
    else rmSync(this.file, { force: true }); // an unlink: cheap for a small file, and done before the next request
  }
}

/** What a gateway serves at one moment: an auth part paired with a decks part. */
export class FollowedView implements StoreView {
  readonly keys: KeyStore;
  readonly decks: DeckStore;
  readonly cursorKey: Buffer;

  /**
   * `position`: the version whose keys and tokens these are; `decksVersion`: the one whose decks.
   * `zones`: the follower's, shared by all its views (a deck keeps its zones until its updatedAt changes).
   */
  constructor(readonly auth: OpenPart, readonly deckPart: OpenPart, readonly position: StorePosition, readonly decksVersion: string, zones: ResolvedDeckCache) {
    this.keys = new KeyStore(auth.db);
    const token = auth.db.prepare<[string], { deck_id: string; expires_at: number | null }>('SELECT deck_id, expires_at FROM deck_tokens WHERE token_hash = ?');
    this.decks = new DeckStore(deckPart.db, { tokens: (hash) => token.get(hash), zones });
    const secret = deckPart.db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE name = ?').get(DECK_CURSOR_SECRET);
    if (!secret) throw new Error(`the decks part ${deckPart.ref.sha256} has no listing cursor key`);
    this.cursorKey = Buffer.from(secret.value, 'base64url');
  }

  get version(): string {
    return this.position.version;
  }
}

/** A request's hold on one view: its parts' files stay until released (then go if retired). */
export function leaseOn(view: FollowedView): StoreLease {
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

/** Closes the files of parts `next` no longer names (each once no request holds it). */
export function retireReplaced(old: FollowedView | null, next: FollowedView | null): void {
  if (!old) return;
  for (const part of [old.auth, old.deckPart]) {
    if (part !== next?.auth && part !== next?.deckPart) part.retire();
  }
}

/** Closes the files of the view served last (at shutdown: no request holds it any more). */
export function closeView(view: FollowedView | null): void {
  if (!view) return;
  view.auth.db.close();
  if (view.deckPart !== view.auth) view.deckPart.db.close();
}
