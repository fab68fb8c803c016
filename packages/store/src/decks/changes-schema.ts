/**
 * The deck change feed's tables (GET /v1/decks/changes, decisions.md "Deck changes"), written by
 * triggers in the same transaction as every write to `decks`, so no writer can forget them and a
 * published decks part (a page copy of this database) carries them to every gateway.
 *
 * - `deck_change_log.head` is the commit-order sequence: every insert, update or delete of a deck
 *   row takes the next number. Never reused, never reset (a restore of an older version starts a
 *   new `epoch` instead: changes.ts).
 * - Upserts are the public decks themselves: `decks.change_seq` is the number of the deck's latest
 *   change, and `decks_public_changes` (public decks by game and change_seq, covering id and
 *   updated_at) reads them in commit order. A deck changed again moves to the end of its game's
 *   range: one entry per deck, kept as long as the deck exists, nothing to prune. Its name starts
 *   with `decks_public_` so that a bulk import drops and rebuilds it like the listing indexes.
 * - Removals (a public deck deleted, made private, or moved to another game) are rows of
 *   `deck_removals`: the id alone, the game it left, and when (for pruning after
 *   --keep-deck-changes-days). `pruned_through` is the newest removal pruned: a cursor before it
 *   may have missed one, and is answered 410.
 * - A deck that was never public makes no row anywhere a partner can read: a removal of a deck
 *   made public earlier in the same import (`public_seq` after the import's first number) is
 *   dropped before the import commits (changes.ts dropTransientRemovals), so an import that leaves
 *   a deck private, or deletes one it created, leaves no trace.
 *
 * Why not one log table keyed by deck id: the per-deck index a log needs to keep one row per deck
 * is a random page per changed deck on top of the ~23 an import already touches; change_seq lives
 * in the deck's own row, whose page the import writes anyway.
 */
export const DECK_CHANGES_MIGRATION_SQL = `
  ALTER TABLE decks ADD COLUMN change_seq INTEGER;
  ALTER TABLE decks ADD COLUMN public_since INTEGER;
  CREATE TABLE deck_change_log (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    head INTEGER NOT NULL,
    pruned_through INTEGER NOT NULL
  );
  -- Decks already stored count as changed in the order they were first imported.
  INSERT INTO deck_change_log (id, head, pruned_through) VALUES (1, (SELECT COALESCE(MAX(seq), 0) FROM decks), 0);
  UPDATE decks SET change_seq = seq, public_since = CASE WHEN visibility = 'public' THEN seq END;
  INSERT OR IGNORE INTO settings (name, value) VALUES ('deck_changes_epoch', lower(hex(randomblob(8))));
  CREATE INDEX decks_public_changes ON decks (game_id, change_seq, id, updated_at) WHERE visibility = 'public';

  CREATE TABLE deck_removals (
    seq INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL,
    deck_id TEXT NOT NULL,
    removed_at INTEGER NOT NULL,
    -- when the deck became public in that game (decks.public_since): dropTransientRemovals uses it
    public_seq INTEGER NOT NULL
  );
  CREATE INDEX deck_removals_game ON deck_removals (game_id, seq, deck_id);

  -- The nested UPDATE of change_seq and public_since fires none of the triggers below (they name
  -- other columns). public_since: the change that made the deck public in its game (null: private).
  CREATE TRIGGER deck_changes_insert AFTER INSERT ON decks
  BEGIN
    UPDATE deck_change_log SET head = head + 1;
    UPDATE decks SET change_seq = (SELECT head FROM deck_change_log),
      public_since = CASE WHEN NEW.visibility = 'public' THEN (SELECT head FROM deck_change_log) END
      WHERE seq = NEW.seq;
  END;
  CREATE TRIGGER deck_changes_update
    AFTER UPDATE OF id, game_id, name, owner_display_name, visibility, created_at, updated_at, copy_count, view_count, like_count ON decks
  BEGIN
    UPDATE deck_change_log SET head = head + 1;
    INSERT INTO deck_removals (seq, game_id, deck_id, removed_at, public_seq)
      SELECT head, OLD.game_id, OLD.id, unixepoch() * 1000, OLD.public_since FROM deck_change_log
      WHERE OLD.visibility = 'public' AND (NEW.visibility <> 'public' OR NEW.game_id <> OLD.game_id OR NEW.id <> OLD.id);
    UPDATE decks SET change_seq = (SELECT head FROM deck_change_log),
      public_since = CASE
        WHEN NEW.visibility <> 'public' THEN NULL
        WHEN OLD.visibility = 'public' AND OLD.game_id = NEW.game_id THEN OLD.public_since
        ELSE (SELECT head FROM deck_change_log)
      END
      WHERE seq = NEW.seq;
  END;
  CREATE TRIGGER deck_changes_delete AFTER DELETE ON decks WHEN OLD.visibility = 'public'
  BEGIN
    UPDATE deck_change_log SET head = head + 1;
    INSERT INTO deck_removals (seq, game_id, deck_id, removed_at, public_seq) SELECT head, OLD.game_id, OLD.id, unixepoch() * 1000, OLD.public_since FROM deck_change_log;
  END;
`;

/** The settings row naming the feed's epoch: cursors of another epoch are answered 410. */
export const DECK_CHANGES_EPOCH = 'deck_changes_epoch';
