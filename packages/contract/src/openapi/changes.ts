/** GET /games/{slug}/changes in the OpenAPI document (decisions.md "Card changes"): its operations, parameters and schemas. */
import { ERRORS } from '../errors.ts';
import { GAMES, GAME_SLUGS } from '../games.ts';
import { CHANGES_LIMIT } from '../limits.ts';
import { TAGS, err, jsonOf, param, ref, type OperationSpec } from './operation-spec.ts';
import { prefixOf } from './changes-schemas.ts';

export const CHANGES_PARAMETERS = {
  Since: {
    name: 'since',
    in: 'query',
    required: true,
    description:
      'The version the partner\'s copy is at: the `indexVersion` of the card pages it walked, or the `toVersion` of its last sync. Opaque; never build one.',
    schema: { type: 'string' },
  },
  ChangesLimit: {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Changes per page; values outside ${CHANGES_LIMIT.min}..${CHANGES_LIMIT.max} are clamped, a non-integer is a 400. Keep it for every page: a cursor is valid only with the limit and since that produced it.`,
    schema: { type: 'integer', default: CHANGES_LIMIT.default },
  },
} as const;

const description =
  'The net change of a game\'s cards from the version `since` to the version current at the first page: cards to upsert (with their hit) and card ids to delete, each card at most once, ordered by card id ' +
  '(a card added and removed in between is absent). Start from the `indexVersion` of a full walk; apply every page, then keep `toVersion` as the next `since`. ' +
  'Later pages are pinned to the first page\'s toVersion, like a walk; pass each page\'s `cursor` until it is null. `since` equal to the current version: no changes. ' +
  `410 "${ERRORS.versionGone}": the change records from \`since\` are no longer kept (30 days by default): walk the cards again. ` +
  `A 400 "${ERRORS.invalidCursor}" means: start again from the first page with the same since.`;

export function changesOperations(): OperationSpec[] {
  const errors = (perGame: boolean) => [
    err(400, 'since is missing, limit is not an integer, or a cursor to restart from the first page', 'sinceRequired', 'limitNotInteger', 'invalidCursor'),
    ...(perGame ? [] : [err(404, 'No public game has this slug', 'gameNotFound')]),
    err(410, 'since is not a version of this game whose change records are still kept: walk the cards again', 'versionGone'),
  ];
  const parameters = [param('Since'), param('ChangesLimit'), param('Cursor')];
  return [
    {
      path: '/games/{slug}/changes',
      operationId: 'getCardChanges',
      summary: 'Cards changed since a version',
      description: `${description} The hit shape depends on the game: the per-game operations (such as getDigimonCardChanges) name it.`,
      tag: TAGS.cards,
      parameters: [param('Slug'), ...parameters],
      ok: { description: 'One page of changes', content: jsonOf({ anyOf: GAME_SLUGS.map((slug) => ref(`${prefixOf(slug)}CardChanges`)) }) },
      errors: errors(false),
    },
    ...GAME_SLUGS.map((slug): OperationSpec => {
      const name = GAMES.find((g) => g.slug === slug)!.displayName;
      return {
        path: `/games/${slug}/changes`,
        operationId: `get${prefixOf(slug)}CardChanges`,
        summary: `${name} cards changed since a version`,
        description: `${description} The same operation as getCardChanges with slug=${slug}, typed with ${prefixOf(slug)}Hit.`,
        tag: TAGS.game(slug),
        parameters,
        ok: { description: `One page of ${name} card changes`, content: jsonOf(ref(`${prefixOf(slug)}CardChanges`)) },
        errors: errors(true),
      };
    }),
  ];
}
