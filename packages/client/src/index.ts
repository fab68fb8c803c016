export { SnapdeckClient } from './client.ts';
export {
  AuthenticationError, ConnectionError, GoneError, InvalidCursorError, InvalidRequestError, NotFoundError, PermissionError, RateLimitError, SearchIntegrityError,
  SearchOriginError, ServerError, SnapdeckError,
} from './errors.ts';
export type { ClientOptions, RetryEvent, RetryOptions } from './http.ts';
export type { WalkOptions, WalkProgress } from './cards.ts';
export type { SearchIndex, SearchOptions, SearchResult } from './search-indexes.ts';
export type { EnumerationProgress, PublicDecksQuery } from './decks.ts';
export type { DeckCheckpoint, DeckSync, DeckSyncEvent, DeckSyncOptions, DeckSyncProgress, SyncedDeck } from './sync-decks.ts';
export type { GameCards, GameHits } from './types.ts';
export type { CardCheckpoint, CardSync, CardSyncEvent, CardSyncOptions, CardSyncProgress } from './sync-cards.ts';
export type {
  ApiGame, CardChange, CardChangesPage, CardEntry, CardsPage, ChronoCoreCard, ChronoCoreHit, Deck, DeckChange, DeckChangesPage, DeckDetail, DeckDetailsResult, DeckSort, DeckSummary, DigimonCard, DigimonHit, GaTtsDeck, GameSlug,
  GrandArchiveCard, GrandArchiveHit, GundamCard, GundamHit, PublicDecksPage,
} from '@snapdeck/contract';
