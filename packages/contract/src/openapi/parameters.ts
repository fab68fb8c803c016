/** The document's reusable parameters (components.parameters), each from the contract's own rules. */
import { CARD_ID_PATTERN, GAME_SLUGS } from '../games.ts';
import { DECK_LIST_LIMIT, DECK_SORTS, HITS_PER_PAGE } from '../limits.ts';
import { CHANGES_PARAMETERS } from './changes.ts';
import { DECK_CHANGES_PARAMETERS } from './deck-changes.ts';

export const PARAMETERS = {
  Slug: { name: 'slug', in: 'path', required: true, description: 'The game.', schema: { type: 'string', enum: [...GAME_SLUGS] } },
  CardId: {
    name: 'cardId',
    in: 'path',
    required: true,
    description: 'The card id (digimon BT1-010, gundam GD01-001, chrono-core WNR01-001, grand-archive lowercase slugs).',
    schema: { type: 'string', pattern: CARD_ID_PATTERN.source },
  },
  HitsPerPage: {
    name: 'hitsPerPage',
    in: 'query',
    required: false,
    description: 'Hits per page. Keep it for the whole walk: a cursor is valid only with the hitsPerPage that produced it.',
    schema: { type: 'integer', minimum: HITS_PER_PAGE.min, maximum: HITS_PER_PAGE.max, default: HITS_PER_PAGE.default },
  },
  Cursor: {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The opaque cursor of the previous page; omit it (or send it empty) for the first page. Never parse or build one.',
    schema: { type: 'string' },
  },
  GameId: { name: 'gameId', in: 'query', required: true, description: 'The game whose decks to list.', schema: { type: 'string', enum: [...GAME_SLUGS] } },
  Limit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Page size; values outside ${DECK_LIST_LIMIT.min}..${DECK_LIST_LIMIT.max} are clamped, a non-integer is a 400.`,
    schema: { type: 'integer', default: DECK_LIST_LIMIT.default },
  },
  StartAfter: {
    name: 'startAfter',
    in: 'query',
    required: false,
    description: "The previous page's nextCursor (opaque); omit it, or send it empty, for the first page.",
    schema: { type: 'string' },
  },
  Sort: {
    name: 'sort',
    in: 'query',
    required: false,
    description: 'Sort field (descending without updatedSince). With updatedSince only updatedAt is allowed.',
    schema: { type: 'string', enum: [...DECK_SORTS], default: DECK_SORTS[0] },
  },
  UpdatedSince: {
    name: 'updatedSince',
    in: 'query',
    required: false,
    description: 'Only decks with updatedAt at or after this ISO 8601 date-time with a time zone (inclusive), in ascending updatedAt order.',
    schema: { type: 'string', format: 'date-time' },
  },
  DeckId: { name: 'deckId', in: 'path', required: true, description: 'The deck id (UUID v4, any letter case).', schema: { type: 'string', format: 'uuid' } },
  DeckFormat: {
    name: 'format',
    in: 'query',
    required: false,
    description: 'The representation: json (default), text, or ga-tts (grand-archive decks only). The Accept header is ignored.',
    schema: { type: 'string', enum: ['json', 'text', 'ga-tts'], default: 'json' },
  },
  TextFormat: { name: 'format', in: 'query', required: true, description: 'The text layout.', schema: { type: 'string', enum: ['limitless', 'snapdeck'] } },
  DeckToken: {
    name: 'token',
    in: 'query',
    required: false,
    description: 'For a private deck: a share token (st_…, valid 24 hours) or a private link (pd_…, never expires). Not checked for a public deck.',
    schema: { type: 'string' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'ETags of previous responses: 304 Not Modified, without a body, when one still matches. `*` matches any current representation, so it is answered 304 (RFC 9110 §13.1.2).',
    schema: { type: 'string' },
  },
  ...CHANGES_PARAMETERS,
  ...DECK_CHANGES_PARAMETERS,
} as const;
