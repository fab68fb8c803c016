import { randomBytes } from 'node:crypto';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { sha256Hex } from '@snapdeck/snapshot';
import type { Db } from '../db/database.ts';
import { KEY_PATTERN, normalizeApiKey } from './secrets.ts';
export const SCOPES = ['decks:browse:public', 'decks:read:public'] as const;
export type Scope = (typeof SCOPES)[number];

export interface ApiKey {
  id: string;
  name: string;
  /** First characters of the key, enough to recognise it in a list; never the whole key. */
  prefix: string;
  scopes: string[];
  quota: number;
  createdAt: string;
  revokedAt: string | null;
}

interface Row {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string;
  quota: number;
  created_at: string;
  revoked_at: string | null;
}

export function hashSecret(secret: string): string {
  return sha256Hex(secret);
}

function toKey(row: Row): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.key_prefix,
    scopes: row.scopes ? row.scopes.split(' ') : [],
    quota: row.quota,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/**
 * How often the key cache asks SQLite whether another process changed the keys: a revoke is in
 * effect on every gateway using the database this long after it is committed.
 */
export const KEY_CHANGE_CHECK_MS = 100;

/**
 * API keys, stored as SHA-256 hashes (keys are 128 random bits, so a fast hash is enough; there is
 * nothing to brute-force). Answers are cached in memory by presented key, so the hot path neither
 * hashes nor queries; the cache is dropped whenever any connection changed the database (PRAGMA
 * data_version, checked at most every 100 ms), so a revoke takes effect within that.
 */
export class KeyStore {
  private readonly byPresented = new Map<string, ApiKey | null>();
  private dataVersion = -1;
  private checkedAt = 0;
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      byHash: db.prepare<[string], Row>('SELECT * FROM api_keys WHERE key_hash = ?'),
      byId: db.prepare<[string], Row>('SELECT * FROM api_keys WHERE id = ?'),
      all: db.prepare<[], Row>('SELECT * FROM api_keys ORDER BY created_at, id'),
      insert: db.prepare('INSERT INTO api_keys (id, name, key_hash, key_prefix, scopes, quota, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
    };
  }

  create(options: { name: string; scopes?: readonly string[]; quota?: number }): { key: string; record: ApiKey } {
    for (const scope of options.scopes ?? []) {
      if (!(SCOPES as readonly string[]).includes(scope)) throw new Error(`unknown scope ${JSON.stringify(scope)}; scopes are ${SCOPES.join(', ')}`);
    }
    const quota = options.quota ?? OPERATOR_DEFAULTS.keyQuota;
    if (!Number.isInteger(quota) || quota < 1) throw new Error('quota must be a positive integer');
    if (options.name.trim() === '') throw new Error('a key needs a name');
    const key = `sd_live_${randomBytes(16).toString('hex')}`;
    const id = `key_${randomBytes(6).toString('hex')}`;
    const scopes = [...new Set(options.scopes ?? [])];
    const createdAt = new Date().toISOString();
    this.statements.insert.run(id, options.name, hashSecret(key), key.slice(0, 12), scopes.join(' '), quota, createdAt);
    return { key, record: { id, name: options.name, prefix: key.slice(0, 12), scopes, quota, createdAt, revokedAt: null } };
  }

  list(): ApiKey[] {
    return this.statements.all.all().map(toKey);
  }

  /**
   * Revokes by id or by the key itself (read as the gateway reads X-API-Key: normalizeApiKey);
   * returns the revoked key, or null when none matched.
   */
  revoke(keyOrId: string): ApiKey | null {
    const key = normalizeApiKey(keyOrId);
    const row = key ? this.statements.byHash.get(hashSecret(key)) : this.statements.byId.get(keyOrId.trim());
    if (!row) return null;
    this.statements.revoke.run(new Date().toISOString(), row.id);
    this.byPresented.clear(); // data_version only moves for other connections' writes
    return toKey(this.statements.byId.get(row.id)!);
  }

  /** The active key for a presented secret, or null (malformed, unknown or revoked). */
  authenticate(secret: string, now = Date.now()): ApiKey | null {
    if (now - this.checkedAt >= KEY_CHANGE_CHECK_MS) {
      this.checkedAt = now;
      const version = this.statements.dataVersion.get()!;
      if (version !== this.dataVersion) {
        this.byPresented.clear();
        this.dataVersion = version;
      }
    }
    let key = this.byPresented.get(secret);
    if (key === undefined) {
      if (!KEY_PATTERN.test(secret)) return null;
      const row = this.statements.byHash.get(hashSecret(secret));
      key = row && row.revoked_at === null ? toKey(row) : null;
      // Bounded: unknown keys are cached too, so a flood of random keys cannot grow it forever.
      if (this.byPresented.size >= 10_000) this.byPresented.clear();
      this.byPresented.set(secret, key);
    }
    return key;
  }
}
