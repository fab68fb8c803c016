/** The deck layer: storage, listing cursors, import, zone resolution and exports. */
export * from './card-lookup.ts';
export * from './cursor.ts';
export { deckDetails, type DetailsSource } from './details.ts';
export * from './ga-tts.ts';
export * from './import.ts';
export * from './import-line.ts';
export * from './import-file.ts';
export * from './listing.ts';
export * from './resolved-cache.ts';
export * from './secret.ts';
export * from './store.ts';
export * from './text.ts';
export * from './timestamps.ts';
export * from './types.ts';
export * from './views.ts';
export * from './zones.ts';
export * from './changes.ts';
export * from './changes-cursor.ts';
