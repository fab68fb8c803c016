export { CARD_HASHES_FILE, changeRecordKey, changeRecordSchema, changesPrefix, type ChangeRecord } from './layout.ts';
export { cardHashes, encodeCardHashes, readCardHashes, type CardHashes } from './hashes.ts';
export { diffCardHashes, recordChanges } from './record.ts';
export { chainBetween, netChanges, type NetChanges } from './net.ts';
export { ChangeFeed, type ChangesPage } from './feed.ts';
export { collectChangeRecords, DEFAULT_KEEP_CHANGES_DAYS } from './gc.ts';
