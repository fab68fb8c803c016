import { DECK_CHANGES_MIGRATION_SQL } from '../decks/changes-schema.ts';

/**
 * Schema migrations, applied in order on open. Each runs once, in a transaction, and is recorded
 * in schema_migrations; never edit a migration that has shipped: add a new one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'api keys',
    sql: `
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        key_prefix TEXT NOT NULL,
        scopes TEXT NOT NULL DEFAULT '',
        quota INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        revoked_at TEXT
      );
    `,
  },
  {
    version: 2,
    name: 'decks, deck cards, deck tokens, settings',
    // Design notes (the queries that rely on them are in decks/store.ts):
    // - decks.seq is the integer row key every child table points at: new decks get increasing seq
    //   values, so an import appends to deck_cards instead of scattering inserts across a b-tree
    //   keyed by random uuids. decks.id (the uuid v4 of the contract) is the public, unique key.
    // - Timestamps are integer epoch milliseconds (UTC), so they sort and compare as numbers.
    // - One partial index per listing sort, public decks only, (game_id, <sort>, id, ...): keyset
    //   pages are an index range read in either direction, and the extra timestamp columns make
    //   the index covering (a page of summaries never touches the table).
    // - deck_public_counts is kept exact by triggers, in the same transaction as the write, so
    //   totalCount of an unfiltered listing is one primary-key read whoever writes the decks.
    sql: `
      CREATE TABLE settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE decks (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        game_id TEXT NOT NULL,
        name TEXT NOT NULL,
        owner_display_name TEXT NOT NULL,
        visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private')),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        copy_count INTEGER NOT NULL DEFAULT 0 CHECK (copy_count >= 0),
        view_count INTEGER NOT NULL DEFAULT 0 CHECK (view_count >= 0),
        like_count INTEGER NOT NULL DEFAULT 0 CHECK (like_count >= 0)
      );
      CREATE INDEX decks_public_updated ON decks (game_id, updated_at, id, created_at) WHERE visibility = 'public';
      CREATE INDEX decks_public_created ON decks (game_id, created_at, id, updated_at) WHERE visibility = 'public';
      CREATE INDEX decks_public_copies ON decks (game_id, copy_count, id, created_at, updated_at) WHERE visibility = 'public';
      CREATE INDEX decks_public_views ON decks (game_id, view_count, id, created_at, updated_at) WHERE visibility = 'public';
      CREATE INDEX decks_public_likes ON decks (game_id, like_count, id, created_at, updated_at) WHERE visibility = 'public';

      CREATE TABLE deck_cards (
        deck_seq INTEGER NOT NULL REFERENCES decks (seq) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        card_id TEXT NOT NULL,
        quantity INTEGER NOT NULL CHECK (quantity > 0),
        zone_id TEXT,
        PRIMARY KEY (deck_seq, position)
      ) WITHOUT ROWID;

      CREATE TABLE deck_tokens (
        token_hash TEXT PRIMARY KEY,
        deck_seq INTEGER NOT NULL REFERENCES decks (seq) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('share', 'private')),
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        CHECK ((kind = 'private') = (expires_at IS NULL))
      ) WITHOUT ROWID;
      CREATE INDEX deck_tokens_deck ON deck_tokens (deck_seq);
      CREATE INDEX deck_tokens_expiry ON deck_tokens (expires_at) WHERE expires_at IS NOT NULL;

      CREATE TABLE deck_public_counts (
        game_id TEXT PRIMARY KEY,
        count INTEGER NOT NULL CHECK (count >= 0)
      ) WITHOUT ROWID;

      CREATE TRIGGER decks_count_insert AFTER INSERT ON decks WHEN NEW.visibility = 'public'
      BEGIN
        INSERT INTO deck_public_counts (game_id, count) VALUES (NEW.game_id, 1)
          ON CONFLICT (game_id) DO UPDATE SET count = count + 1;
      END;
      CREATE TRIGGER decks_count_delete AFTER DELETE ON decks WHEN OLD.visibility = 'public'
      BEGIN
        UPDATE deck_public_counts SET count = count - 1 WHERE game_id = OLD.game_id;
      END;
      CREATE TRIGGER decks_count_update AFTER UPDATE OF visibility, game_id ON decks
        WHEN OLD.visibility IS NOT NEW.visibility OR OLD.game_id IS NOT NEW.game_id
      BEGIN
        UPDATE deck_public_counts SET count = count - 1 WHERE OLD.visibility = 'public' AND game_id = OLD.game_id;
        INSERT INTO deck_public_counts (game_id, count) SELECT NEW.game_id, 1 WHERE NEW.visibility = 'public'
          ON CONFLICT (game_id) DO UPDATE SET count = count + 1;
      END;
    `,
  },
  {
    version: 3,
    name: 'change generations for publishing the store',
    // What a publish must send (published/publish.ts): the small, often-changing auth part (keys,
    // tokens) and the large deck part change independently, and a key change must not re-send a
    // million decks. Every write bumps its part's generation in the same transaction, so the
    // writer knows, without reading any data, whether a part changed since it was last published.
    // One trigger per deck row (deck_cards are written only together with their deck's row, and
    // deleted with it), so a large import pays one counter update per deck, not per card.
    sql: `
      CREATE TABLE store_generations (
        part TEXT PRIMARY KEY CHECK (part IN ('auth', 'decks')),
        generation INTEGER NOT NULL
      ) WITHOUT ROWID;
      INSERT INTO store_generations (part, generation) VALUES ('auth', 0), ('decks', 0);

      -- Per location: the store version this database last published there or was restored from
      -- (the one-writer rule), the one being published (pending: made current by a writer that
      -- may have been killed before writing it down here), and what each part held then.
      CREATE TABLE store_publications (
        location TEXT PRIMARY KEY,
        version TEXT,
        auth_generation INTEGER,
        decks_generation INTEGER,
        pending_version TEXT,
        pending_auth_generation INTEGER,
        pending_decks_generation INTEGER
      ) WITHOUT ROWID;

      CREATE TRIGGER store_auth_key_insert AFTER INSERT ON api_keys BEGIN UPDATE store_generations SET generation = generation + 1 WHERE part = 'auth'; END;
      CREATE TRIGGER store_auth_key_update AFTER UPDATE ON api_keys BEGIN UPDATE store_generations SET generation = generation + 1 WHERE part = 'auth'; END;
      CREATE TRIGGER store_auth_key_delete AFTER DELETE ON api_keys BEGIN UPDATE store_generations SET generation = generation + 1 WHERE part = 'auth'; END;
      CREATE TRIGGER store_auth_token_insert AFTER INSERT ON deck_tokens BEGIN UPDATE store_generations SET generation = generation + 1 WHERE part = 'auth'; END;
      CREATE TRIGGER store_auth_token_update AFTER UPDATE ON deck_tokens BEGIN UPDATE store_generations SET generation = generation + 1 WHERE part = 'auth'; END;
      CREATE TRIGGER store_auth_token_delete AFTER DELETE ON deck_tokens BEGIN UPDATE store_generations SET generation = generation + 1 WHERE part = 'auth'; END;
      CREATE TRIGGER store_decks_insert AFTER INSERT ON decks BEGIN UPDATE store_generations SET generation = generation + 1 WHERE part = 'decks'; END;
      CREATE TRIGGER store_decks_update AFTER UPDATE ON decks BEGIN UPDATE store_generations SET generation = generation + 1 WHERE part = 'decks'; END;
      CREATE TRIGGER store_decks_delete AFTER DELETE ON decks BEGIN UPDATE store_generations SET generation = generation + 1 WHERE part = 'decks'; END;
    `,
  },
  {
    version: 4,
    name: 'store sequence and store id of the last publication',
    // Versions only move forward (published/version-order.ts): the writer remembers the sequence
    // and store id of the version it last published or was restored from, so that a pointer put
    // back to an older version is recognised as such, and its next publish numbers above both.
    sql: `
      ALTER TABLE store_publications ADD COLUMN sequence INTEGER;
      ALTER TABLE store_publications ADD COLUMN store_id TEXT;
    `,
  },
  {
    version: 5,
    name: 'deck change feed',
    // GET /v1/decks/changes: the commit-order sequence, change_seq on decks, removals (decks/changes-schema.ts).
    sql: DECK_CHANGES_MIGRATION_SQL,
  },
];
