/** GET /decks/changes in the OpenAPI document (decisions.md "Deck changes"): its operation, parameters and schemas. */
import { ERRORS } from '../errors.ts';
import { DECK_CHANGES_LIMIT } from '../limits.ts';
import { OPERATOR_DEFAULTS } from '../operator-defaults.ts';
import { TAGS, err, param, ref, type OperationSpec } from './operation-spec.ts';

export const DECK_CHANGES_PARAMETERS = {
  DeckChangesSince: {
    name: 'since',
    in: 'query',
    required: false,
    description:
      'The `cursor` of the previous answer (opaque; never parse or build one). Omit it (or send it empty) to get the cursor of now, with no changes: the start of a first sync.',
    schema: { type: 'string' },
  },
  DeckChangesLimit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Changes per page; values outside ${DECK_CHANGES_LIMIT.min}..${DECK_CHANGES_LIMIT.max} are clamped, a non-integer is a 400.`,
    schema: { type: 'integer', default: DECK_CHANGES_LIMIT.default },
  },
} as const;

const EXAMPLE_CURSOR = 'ZjF8ZGlnaW1vbnw5ZjJjMWE0ZTc3YjAzZDUxfDEwNDJ8MTA0Mg.q1wKZ3GmZb0oZr2FJQ0x3A';

export function deckChangesOperation(): OperationSpec {
  return {
    path: '/decks/changes',
    operationId: 'listDeckChanges',
    summary: "A game's public deck changes since a cursor",
    description:
      'The public decks of a game that changed after `since`, in the order the writer committed them, whatever their updatedAt (needs the scope decks:browse:public): ' +
      '`upsert` for a deck that is public now (with its updatedAt), `removed` for one deleted or no longer public (the id alone). A deck that was never public never appears; each deck appears at most once a page, with its latest change. ' +
      'A first sync: take the cursor of now (no `since`), enumerate GET /decks/public, then follow this feed from that cursor (a deck seen twice is applied twice, harmlessly). ' +
      'Then request with `since` = the last `cursor` while `hasMore` is true. The cursor is valid on every gateway following the same store; an empty page with `hasMore` true means this gateway has not yet caught up with the one that issued the cursor: ask again shortly. ' +
      `410 "${ERRORS.deckCursorGone}": the cursor is older than the kept removals (${OPERATOR_DEFAULTS.keepDeckChangesDays} days by default): take a new cursor and enumerate again.`,
    tag: TAGS.decks,
    parameters: [param('GameId'), param('DeckChangesSince'), param('DeckChangesLimit')],
    ok: {
      description: 'A page of deck changes',
      content: {
        'application/json': {
          schema: ref('DeckChangesResponse'),
          examples: {
            now: { summary: 'Without since: the cursor of now', value: { data: { changes: [], cursor: EXAMPLE_CURSOR, hasMore: false } } },
            changes: {
              summary: 'A deck updated, one removed',
              value: {
                data: {
                  changes: [
                    { id: '3f1e9c1a-8d2b-4c55-9a0e-2b7d4f6a1c03', change: 'upsert', updatedAt: '2026-11-20T10:00:00.000Z' },
                    { id: '0b6a2f4e-51c7-4e89-b3d2-7c9e1f0a4d58', change: 'removed' },
                  ],
                  cursor: EXAMPLE_CURSOR,
                  hasMore: false,
                },
              },
            },
          },
        },
      },
    },
    errors: [
      err(400, 'gameId is missing, limit is not an integer, or since is not a cursor of this store and game (tampered, from another store or game, or a /decks/public cursor)', 'gameIdRequired', 'limitNotInteger', 'invalidCursor'),
      err(403, 'The key lacks the scope decks:browse:public', 'insufficientScope'),
      err(404, 'No public game has this gameId', 'gameNotFound'),
      err(410, 'The cursor is older than the kept change records: take the cursor of now and enumerate GET /decks/public again', 'deckCursorGone'),
    ],
  };
}
