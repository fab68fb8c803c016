/** The writer side's data: one SQLite database of API keys, share tokens and decks. */
export * from './db/database.ts';
export { MIGRATIONS } from './db/migrations.ts';
export * from './keys/store.ts';
export * from './decks/index.ts';
