export * from './app.ts';
export * from './db/database.ts';
export * from './keys/store.ts';
export * from './quota/counter.ts';
export * from './server.ts';
