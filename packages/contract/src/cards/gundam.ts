/**
 * Gundam Card Game cards. Designed from the gcg-api catalog (one row per printing); snapdeck keeps
 * one card per card number and turns the other printings (`GD01-001_p1`, …) into `cardArts`.
 *
 * Card fields
 * - `id`, `objectID`, `cardNumber`: the card number (`GD01-001`, `ST01-010`, `R-001`, `T-011`); equal.
 * - `name`; `cardType` (Unit, Pilot, Command, Base, Resource, Unit Token, EX Base, EX Resource);
 *   `color` (empty for colorless cards such as Resources and tokens).
 * - Numbers, null when the card type has none: `level`, `cost`, `ap`, `hp`. On Pilot cards (and
 *   Commands with a pilot half) `ap` / `hp` are the bonus the pilot grants when paired (+1 → 1).
 * - `rarity` of the standard printing (C, U, R, LR, P); parallel printings carry their own.
 * - `traits` ("Earth Federation"), `terrain` (where a Unit may fight: Space, Earth; empty when not
 *   printed), `linkCondition` (the printed link requirement, or null) and `linkRefs` (the pilots or
 *   traits it names), `keywords` (`{keyword, value}`: Blocker, Repair 1, …), `timings` (【Deploy】,
 *   【When Paired】, … without brackets), `effect` ("" when none).
 * - `sourceTitle` (the anime series, or null), `block` (block icon "1", "2", "β", or null).
 * - Set: `setId` (`GD01`), `setName`, `setOrder` (number after the dash), `productOrigin` (where the
 *   standard printing is obtained).
 * - Art: `cardImageUrl` (standard printing), `detailUrl` (official card page), `hasAltArt`,
 *   `cardArts`: every printing, the standard one first, each `{id, type, url, rarity, productOrigin}`
 *   where `id` is the printing id and `type` is Standard, Parallel or SP.
 *
 * Hit: id, objectID, cardNumber, name, cardType, color, level, cost, ap, hp, rarity, traits,
 * linkCondition, keywords, effect, timings, setId, setName, cardImageUrl, hasAltArt and cardArts
 * reduced to `{id, type, url}`.
 */
import { z } from 'zod';
import { apiId, cardIdOf, hasAltArtWhenManyArts, httpUrl, idFields, nameText, sameIds, stat } from './fields.ts';
import { hitProjection } from './hit.ts';
import { cardModel } from './model.ts';

export const GUNDAM_CARD_TYPES = ['Unit', 'Pilot', 'Command', 'Base', 'Resource', 'Unit Token', 'EX Base', 'EX Resource'] as const;
export const GUNDAM_ART_TYPES = ['Standard', 'Parallel', 'SP'] as const;

const cardId = cardIdOf('gundam');
/** Printing ids add `_p<n>` to the card number: GD01-001_p1. */
const printingId = apiId(/^[A-Z0-9]+-\d+(?:_p\d+)?$/);

export const gundamCardArtSchema = z.strictObject({
  id: printingId,
  type: z.enum(GUNDAM_ART_TYPES),
  url: httpUrl,
  rarity: z.string().min(1),
  productOrigin: z.string(),
});
export type GundamCardArt = z.infer<typeof gundamCardArtSchema>;
export const gundamHitArtSchema = z.strictObject({ id: printingId, type: z.enum(GUNDAM_ART_TYPES), url: httpUrl });
export const gundamKeywordSchema = z.strictObject({ keyword: z.string().min(1), value: z.number().int().nonnegative().nullable() });

const hitShape = {
  ...idFields(cardId, 'id', 'objectID', 'cardNumber'),
  name: nameText,
  cardType: z.enum(GUNDAM_CARD_TYPES),
  color: z.array(z.string().min(1)),
  level: stat,
  cost: stat,
  ap: stat,
  hp: stat,
  rarity: z.string().min(1),
  traits: z.array(z.string().min(1)),
  linkCondition: z.string().min(1).nullable(),
  keywords: z.array(gundamKeywordSchema),
  effect: z.string(),
  timings: z.array(z.string().min(1)),
  setId: z.string().regex(/^[A-Z0-9]+$/),
  setName: nameText,
  cardImageUrl: httpUrl,
  hasAltArt: z.boolean(),
};

const idsAgree = sameIds('id', 'cardNumber', 'objectID');

export const gundamCardSchema = z
  .strictObject({
    ...hitShape,
    terrain: z.array(z.string().min(1)),
    linkRefs: z.array(z.string().min(1)),
    sourceTitle: z.string().min(1).nullable(),
    block: z.string().min(1).nullable(),
    setOrder: z.number().int().nonnegative(),
    productOrigin: z.string(),
    detailUrl: httpUrl,
    cardArts: z.array(gundamCardArtSchema).min(1),
  })
  .refine(...idsAgree)
  .refine((c) => c.cardArts.every((art) => art.id === c.id || art.id.startsWith(`${c.id}_p`)), {
    message: 'every printing id is the card number, optionally followed by _p<n>',
    path: ['cardArts'],
  })
  .refine(...hasAltArtWhenManyArts('printing'));
export type GundamCard = z.infer<typeof gundamCardSchema>;

export const gundamHitSchema = z
  .strictObject({ ...hitShape, cardArts: z.array(gundamHitArtSchema).min(1) })
  .refine(...idsAgree);
export type GundamHit = z.infer<typeof gundamHitSchema>;

export const gundamModel = cardModel('gundam', { card: gundamCardSchema, hit: gundamHitSchema }, hitProjection(hitShape), (card) => card.name);
