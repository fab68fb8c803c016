/** The writer side's data: one SQLite database of API keys, share tokens and decks. */
export * from './db/database.ts';
export { MIGRATIONS } from './db/migrations.ts';
export * from './keys/store.ts';
export * from './keys/secrets.ts';
export * from './decks/index.ts';
export * from './source.ts';
export * from './published/layout.ts';
export * from './published/parts.ts';
export * from './published/publish.ts';
export * from './published/decks-publish.ts';
export * from './published/part-fetch.ts';
export * from './published/page-delta.ts';
export * from './published/publications.ts';
export * from './published/version-order.ts';
export * from './published/restore.ts';
export * from './published/follower.ts';
export * from './published/presence.ts';
export * from './published/presence-read.ts';
