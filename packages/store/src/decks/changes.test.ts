import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { importDecks } from './import.ts';
import { DeckChangeFeed, pruneDeckChanges, startDeckChangesEpoch } from './changes.ts';
import { decodeDeckChangesCursor, encodeDeckChangesCursor } from './changes-cursor.ts';
import { DECK_CURSOR_SECRET, getOrCreateSecret } from './secret.ts';
import { deck, line, newId, tempDeckStorePerTest } from '../../../../test/helpers/deck-db.ts';

const t = tempDeckStorePerTest();
const key = () => getOrCreateSecret(t.db, DECK_CURSOR_SECRET);
const feed = () => DeckChangeFeed.of(t.db);

/** Every page from `since` to the end, as [id, change] pairs, and the last cursor. */
function follow(since: string, limit = 1000): { changes: Array<[string, string]>; cursor: string; pages: number } {
  const changes: Array<[string, string]> = [];
  let cursor = since;
  let pages = 0;
  for (;;) {
    const result = feed().page(key(), 'digimon', cursor, limit);
    if (!result.ok) throw new Error(result.error);
    pages += 1;
    for (const c of result.page.changes) changes.push([c.id, c.change]);
    cursor = result.page.cursor;
    if (!result.page.hasMore) return { changes, cursor, pages };
  }
}
const now = () => {
  const result = feed().page(key(), 'digimon', undefined, 1000);
  if (!result.ok) throw new Error(result.error);
  return result.page.cursor;
};

describe('the deck change feed (store)', () => {
  it('orders by commit, not by updatedAt: a deck imported later with an older updatedAt follows the cursor', async () => {
    const a = deck({ updatedAt: '2026-11-20T22:00:00Z' });
    await importDecks(t.db, [line(a)]);
    const cursor = now();
    const b = deck({ updatedAt: '2026-11-20T10:00:00Z', createdAt: '2026-11-20T09:00:00Z' });
    await importDecks(t.db, [line(b)]);
    const page = feed().page(key(), 'digimon', cursor, 1000);
    expect(page).toEqual({ ok: true, page: { changes: [{ id: b.id, change: 'upsert', updatedAt: '2026-11-20T10:00:00.000Z' }], cursor: expect.any(String), hasMore: false } });
  });

  it('removals carry only the id; a never-public deck never appears; each deck once a page', async () => {
    const pub = deck();
    const priv = deck({ visibility: 'private' });
    await importDecks(t.db, [line(pub), line(priv)]);
    const cursor = now();
    await importDecks(t.db, [line({ ...pub, visibility: 'private' }), line({ ...priv, name: 'still private' }), line({ id: priv.id, deleted: true })]);
    expect(follow(cursor).changes).toEqual([[pub.id, 'removed']]);
    await importDecks(t.db, [line({ ...pub, visibility: 'public' })]);
    // Removed then public again, in one page: its latest change only.
    expect(follow(cursor).changes).toEqual([[pub.id, 'upsert']]);
    await importDecks(t.db, [line({ id: pub.id, deleted: true })]);
    expect(follow(cursor).changes).toEqual([[pub.id, 'removed']]);
    // Moving to another game is a removal from this one.
    const moved = deck();
    await importDecks(t.db, [line(moved)]);
    const before = now();
    await importDecks(t.db, [line({ ...moved, gameId: 'gundam' })]);
    expect(follow(before).changes).toEqual([[moved.id, 'removed']]);
  });

  it('an import that leaves a deck private, or deletes one it made public, leaves no trace; one that removes a deck public before it does', async () => {
    const before = deck();
    await importDecks(t.db, [line(before)]);
    const cursor = now();
    const brief = deck();
    const gone = deck();
    await importDecks(t.db, [
      line(brief), line({ ...brief, visibility: 'private' }),
      line(gone), line({ id: gone.id, deleted: true }),
      line({ ...before, name: 'edited' }), line({ ...before, visibility: 'private' }),
    ]);
    expect(follow(cursor).changes).toEqual([[before.id, 'removed']]);
    expect(t.db.prepare('SELECT COUNT(*) FROM deck_removals').pluck().get()).toBe(1);
  });

  it('pages of `limit` changes end where the next begins; the last cursor is the head', async () => {
    const cursor = now();
    const decks = Array.from({ length: 25 }, () => deck());
    await importDecks(t.db, decks.map(line));
    await importDecks(t.db, [line({ id: decks[3]!.id, deleted: true })]);
    const all = follow(cursor, 4);
    expect(all.pages).toBe(7);
    expect(all.changes.map(([id]) => id)).toEqual([...decks.filter((_, i) => i !== 3).map((d) => d.id), decks[3]!.id]);
    expect(follow(all.cursor).changes).toEqual([]);
  });

  it('refuses cursors of another game, another store, a tampered one or a listing cursor (400); 410 once a needed removal is pruned or the epoch moved', async () => {
    const d = deck();
    await importDecks(t.db, [line(d)]);
    const cursor = now();
    expect(feed().page(key(), 'gundam', cursor, 10)).toEqual({ ok: false, error: 'invalidCursor' });
    const other = openDatabase(':memory:');
    expect(feed().page(getOrCreateSecret(other, DECK_CURSOR_SECRET), 'digimon', cursor, 10)).toEqual({ ok: false, error: 'invalidCursor' });
    const tampered = encodeDeckChangesCursor(Buffer.alloc(32), decodeDeckChangesCursor(key(), cursor, 'digimon')!);
    expect(feed().page(key(), 'digimon', tampered, 10)).toEqual({ ok: false, error: 'invalidCursor' });
    const listing = t.store.listPublic({ game: 'digimon', sort: 'updatedAt', limit: 1 });
    expect(listing.decks).toHaveLength(1);
    await importDecks(t.db, [line({ id: d.id, deleted: true })]);
    const after = now();
    expect(pruneDeckChanges(t.db, 30).removed).toBe(0);
    expect(feed().page(key(), 'digimon', cursor, 10).ok).toBe(true);
    expect(pruneDeckChanges(t.db, 30, Date.now() + 31 * 86_400_000).removed).toBe(1);
    expect(feed().page(key(), 'digimon', cursor, 10)).toEqual({ ok: false, error: 'cursorGone' });
    expect(feed().page(key(), 'digimon', after, 10).ok).toBe(true);
    startDeckChangesEpoch(t.db);
    expect(feed().page(key(), 'digimon', after, 10)).toEqual({ ok: false, error: 'cursorGone' });
    other.close();
  });

  it('a gateway behind the cursor\'s issuer answers nothing yet, more to come, and keeps the cursor', async () => {
    const cursor = now();
    const ahead = decodeDeckChangesCursor(key(), cursor, 'digimon')!;
    const future = encodeDeckChangesCursor(key(), { ...ahead, position: ahead.position + 5, watermark: ahead.watermark + 5 });
    expect(feed().page(key(), 'digimon', future, 10)).toEqual({ ok: true, page: { changes: [], cursor: future, hasMore: true } });
    await importDecks(t.db, Array.from({ length: 5 }, () => line(deck())));
    expect(feed().page(key(), 'digimon', future, 10)).toMatchObject({ ok: true, page: { changes: [], hasMore: false } });
  });

  it('a bulk import keeps the feed index (it is rebuilt with the listing indexes)', async () => {
    const cursor = now();
    await importDecks(t.db, Array.from({ length: 2100 }, () => line(deck({ id: newId() }))), { bulkMinDecks: 10 });
    expect(follow(cursor).changes).toHaveLength(2100);
    expect(t.db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'decks_public_changes'").pluck().get()).toBe(1);
  });
});
