/**
 * Grand Archive cards. Designed from the GA Index data (cards keyed by a lowercase slug, printed in
 * "editions" keyed by an edition slug); snapdeck keeps one card per slug, its editions become
 * `cardArts`.
 *
 * Card fields
 * - `id`, `objectID`: the card slug (`lorraine-wandering-warrior`); equal. `uuid`: the GA Index id
 *   (`DpHDGaX2Pn`), kept so other GA tools can be matched.
 * - `name`; `types` (ALLY, REGALIA, WEAPON, …) and `subtypes` (HUMAN, WARRIOR, SPELL, …) in the
 *   index's upper case, `typeLine` ("REGALIA / WEAPON"), `classes` (the class subtypes: CLERIC, …).
 * - `deckZone`: the deck the card is built into, `main` or `material` (null for tokens); `cost`
 *   (null when printed without one) and `costKind` (`reserve` for main-deck cards, `memory` for
 *   material-deck cards).
 * - Stats, null when unknown or not printed: `element` (FIRE, WATER, …), `level`, `power`, `life`,
 *   `durability`, `speed` (Fast / Slow). The public dumps snapdeck imports from lack them, so
 *   imported cards carry null here.
 * - `effect` ("" when none).
 * - Set, from the card's main edition, null when no edition is known: `setId` (`DOA1E`), `setName`,
 *   `rarity` (C, U, R, SR, UR, PR, CSR, CUR, CPR), `illustrator`.
 * - Art: `cardImageUrl` (the main edition's image), `hasAltArt`, `cardArts`: every edition, the main
 *   one first, `{id, type, url, setId, setName, collectorNumber, rarity, illustrator}` where `id` is
 *   the edition slug and `type` is Standard, First Edition, Alter Edition or Collector.
 *
 * Hit: id, objectID, name, types, subtypes, typeLine, classes, element, deckZone, cost, costKind,
 * level, effect, setId, setName, rarity, cardImageUrl, hasAltArt and cardArts reduced to
 * `{id, type, url}`.
 */
import { z } from 'zod';
import { ZONE } from '../zones.ts';
import { apiId, cardIdOf, hasAltArtWhenManyArts, httpUrl, idFields, nameText, sameIds, stat } from './fields.ts';
import { hitProjection } from './hit.ts';
import { cardModel } from './model.ts';

export const GRAND_ARCHIVE_RARITIES = ['C', 'U', 'R', 'SR', 'UR', 'PR', 'CSR', 'CUR', 'CPR'] as const;
export const GRAND_ARCHIVE_ART_TYPES = ['Standard', 'First Edition', 'Alter Edition', 'Collector'] as const;
/** Subtypes that are classes (a champion's class decides which Class Bonus effects apply). */
export const GRAND_ARCHIVE_CLASSES = ['ASSASSIN', 'CLERIC', 'GUARDIAN', 'MAGE', 'RANGER', 'SPIRIT', 'TAMER', 'WARRIOR'] as const;

const cardId = cardIdOf('grand-archive');
const editionId = apiId(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
const upperWord = z.string().regex(/^[A-Z][A-Z0-9' -]*$/);

export const grandArchiveCardArtSchema = z.strictObject({
  id: editionId,
  type: z.enum(GRAND_ARCHIVE_ART_TYPES),
  url: httpUrl,
  setId: z.string().min(1),
  setName: nameText,
  collectorNumber: z.string().min(1),
  rarity: z.enum(GRAND_ARCHIVE_RARITIES),
  illustrator: z.string().min(1).nullable(),
});
export type GrandArchiveCardArt = z.infer<typeof grandArchiveCardArtSchema>;
export const grandArchiveHitArtSchema = z.strictObject({ id: editionId, type: z.enum(GRAND_ARCHIVE_ART_TYPES), url: httpUrl });

const hitShape = {
  ...idFields(cardId, 'id', 'objectID'),
  name: nameText,
  types: z.array(upperWord).min(1),
  subtypes: z.array(upperWord),
  typeLine: z.string().min(1),
  classes: z.array(z.enum(GRAND_ARCHIVE_CLASSES)),
  element: upperWord.nullable(),
  deckZone: z.enum([ZONE.main, ZONE.material]).nullable(),
  cost: stat,
  costKind: z.enum(['reserve', 'memory']).nullable(),
  level: stat,
  effect: z.string(),
  setId: z.string().min(1).nullable(),
  setName: nameText.nullable(),
  rarity: z.enum(GRAND_ARCHIVE_RARITIES).nullable(),
  cardImageUrl: httpUrl,
  hasAltArt: z.boolean(),
};

const idsAgree = sameIds('id', 'objectID');

export const grandArchiveCardSchema = z
  .strictObject({
    ...hitShape,
    uuid: z.string().regex(/^[A-Za-z0-9]{10}$/),
    power: stat,
    life: stat,
    durability: stat,
    speed: z.enum(['Fast', 'Slow']).nullable(),
    illustrator: z.string().min(1).nullable(),
    cardArts: z.array(grandArchiveCardArtSchema),
  })
  .refine(...idsAgree)
  .refine(...hasAltArtWhenManyArts('edition'))
  .refine((c) => (c.cardArts[0]?.setId ?? null) === c.setId, { message: 'setId is the set of the main (first) edition, null without editions', path: ['setId'] });
export type GrandArchiveCard = z.infer<typeof grandArchiveCardSchema>;

export const grandArchiveHitSchema = z
  .strictObject({ ...hitShape, cardArts: z.array(grandArchiveHitArtSchema) })
  .refine(...idsAgree);
export type GrandArchiveHit = z.infer<typeof grandArchiveHitSchema>;

export const grandArchiveModel = cardModel('grand-archive', { card: grandArchiveCardSchema, hit: grandArchiveHitSchema }, hitProjection(hitShape), (card) => card.name);
