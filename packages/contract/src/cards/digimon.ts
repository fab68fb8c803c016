/**
 * Digimon Card Game cards: interface.md §2.6 (card) and §2.7 (hit), field for field.
 *
 * Card fields
 * - `id`, `cardNumber`, `objectID`: the card number (`BT1-010`, `ST1-01`, `P-001`); always equal.
 * - `name.english`; `color` (1–2 of Red, Blue, Yellow, Green, Black, Purple, White); `cardType`
 *   (Digimon, Digi-Egg, Tamer, Option, Dual).
 * - Numbers: `dp` (null when the card has none), `playCost` and `level` (integers; 0 when the card
 *   has none, e.g. a Digi-Egg's play cost or an Option's level; the contract makes them non-null).
 * - Text: `rarity`, `attribute`, `form`, `type` (traits joined with "/"), all "" when absent;
 *   `effect` ("" when none), `inheritedEffect`, `securityEffect`, `aceEffect` (string or null).
 * - LINK: `hasLink`, `linkCondition`, `linkEffect` (string or null), `linkDp` (integer or null).
 * - `specialDigivolve`: alternative [Digivolve] / [App Fusion] requirements printed on the card;
 *   `specialDigivolutionConditions`: DNA, DigiXros, Assembly and Burst requirements (string or null).
 * - `digivolveCondition`: `{color[], cost, level}` per way of digivolving onto this card ("All" is
 *   kept as printed and means any color).
 * - Set: `setId` (`BT1`), `setName` (the set's own name, even for reprints), `setOrder` (the number
 *   after the dash: BT1-010 → 10), `productOrigin` (the product this printing was taken from).
 * - `timings`: the timing markers that open the card's effect lines ("On Play", "Security", …).
 * - Art: `illustrator` ("" when unknown), `cardImageUrl` (main image), `imageSourceUrl` (the
 *   publisher's image the main one was taken from), `hasAltArt`, `cardArts` (the main art first as
 *   `{id, type, url}`, then each alternative art with `illustrator`, `marketplaceProductId` (0 when no
 *   marketplace listing is known) and `pricingLabel`), `AAs` (the alternative-art printings).
 *
 * Hit (§2.7): id, cardNumber, objectID, name{english}, color, cardType, dp, playCost, level, rarity,
 * attribute, form, type, effect, inheritedEffect, securityEffect, setId, setName, cardImageUrl,
 * timings, hasAltArt and cardArts reduced to `{id, type, url}`.
 */
import { z } from 'zod';
import { apiId, cardIdOf, httpUrl, idFields, nameText, sameIds } from './fields.ts';
import { hitProjection } from './hit.ts';
import { cardModel } from './model.ts';

export const DIGIMON_COLORS = ['Red', 'Blue', 'Yellow', 'Green', 'Black', 'Purple', 'White'] as const;
export const DIGIMON_CARD_TYPES = ['Digimon', 'Digi-Egg', 'Tamer', 'Option', 'Dual'] as const;

/**
 * Timing markers as printed in brackets at the start of an effect line. Only these count as
 * `timings`; other bracketed words (card names, traits) do not.
 */
export const DIGIMON_TIMINGS = [
  'On Play', 'When Digivolving', 'When Attacking', 'End of Attack', 'On Deletion', 'When Moving',
  'When Linking', 'Your Turn', "Opponent's Turn", 'All Turns', 'Main', 'Security', 'Counter', 'Hand',
  'Trash', 'Breeding', 'Link', 'Start of Your Turn', 'End of Your Turn', 'Start of Your Main Phase',
  "Start of Opponent's Turn", "End of Opponent's Turn", "Start of Opponent's Main Phase",
  'End of All Turns', 'Once Per Turn', 'Twice Per Turn',
] as const;
const timingSet: ReadonlySet<string> = new Set(DIGIMON_TIMINGS);

/**
 * The timing markers of some effect texts, in order of first appearance. A marker counts only in
 * the run of brackets opening a line, so "doesn't activate [Security] effects" is not a timing.
 */
export function digimonTimingsOf(texts: ReadonlyArray<string | null>): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    for (const line of text.split('\n')) {
      const lead = /^(?:\s*\[[^\]\n]+\])+/.exec(line.replace(/^Inherited Effect\s*/, ''));
      if (!lead) continue;
      for (const m of lead[0].matchAll(/\[([^\]\n]+)\]/g)) {
        const marker = m[1];
        if (marker !== undefined && timingSet.has(marker)) found.add(marker);
      }
    }
  }
  return [...found];
}

const cardId = cardIdOf('digimon');
const artId = apiId();
const count = z.number().int().nonnegative();
/** Nullable texts are null when absent, never "". */
const optionalText = z.string().min(1).nullable();

export const digimonCardArtSchema = z.strictObject({ id: artId, type: z.string().min(1), url: httpUrl });
export type DigimonCardArt = z.infer<typeof digimonCardArtSchema>;
export const digimonAltCardArtSchema = digimonCardArtSchema.extend({
  illustrator: z.string(),
  marketplaceProductId: count,
  pricingLabel: z.string().min(1),
});
export const digimonAltArtSchema = z.strictObject({
  id: artId,
  type: z.string().min(1),
  illustrator: z.string(),
  cardImageUrl: httpUrl,
  pricingLabel: z.string().min(1),
  marketplaceProductId: count,
  productOrigin: z.string(),
});
export type DigimonAltArt = z.infer<typeof digimonAltArtSchema>;
export const digimonDigivolveConditionSchema = z.strictObject({
  color: z.array(z.string().min(1)).min(1),
  cost: count,
  level: count,
});

/** Fields shared by card and hit, so the hit stays a true subset. */
const hitShape = {
  ...idFields(cardId, 'id', 'cardNumber', 'objectID'),
  name: z.strictObject({ english: nameText }),
  color: z.array(z.enum(DIGIMON_COLORS)).min(1),
  cardType: z.enum(DIGIMON_CARD_TYPES),
  dp: count.nullable(),
  playCost: count,
  level: count,
  rarity: z.string().min(1),
  attribute: z.string(),
  form: z.string(),
  type: z.string(),
  effect: z.string(),
  inheritedEffect: optionalText,
  securityEffect: optionalText,
  setId: z.string().regex(/^[A-Z0-9]+$/),
  setName: nameText,
  cardImageUrl: httpUrl,
  timings: z.array(z.string().min(1)),
  hasAltArt: z.boolean(),
};

const idsAgree = sameIds('id', 'cardNumber', 'objectID');

export const digimonCardSchema = z
  .strictObject({
    ...hitShape,
    aceEffect: optionalText,
    linkDp: z.number().int().nullable(),
    hasLink: z.boolean(),
    linkCondition: optionalText,
    linkEffect: optionalText,
    specialDigivolve: optionalText,
    specialDigivolutionConditions: optionalText,
    digivolveCondition: z.array(digimonDigivolveConditionSchema),
    setOrder: count,
    productOrigin: z.string(),
    illustrator: z.string(),
    imageSourceUrl: httpUrl,
    // An alternative art is recognised by its extra members; the main art has none.
    cardArts: z.array(z.union([digimonAltCardArtSchema, digimonCardArtSchema])).min(1),
    AAs: z.array(digimonAltArtSchema),
  })
  .refine(...idsAgree)
  .refine((c) => c.cardArts[0]?.id === c.id, { message: 'the first card art is the main art and carries the card id', path: ['cardArts'] })
  .refine((c) => c.hasAltArt === c.AAs.length > 0, { message: 'hasAltArt must be true exactly when AAs is not empty', path: ['hasAltArt'] })
  .refine((c) => c.hasLink === (c.linkCondition !== null || c.linkEffect !== null || c.linkDp !== null), {
    message: 'hasLink must be true exactly when the card has LINK data',
    path: ['hasLink'],
  });
export type DigimonCard = z.infer<typeof digimonCardSchema>;

export const digimonHitSchema = z
  .strictObject({ ...hitShape, cardArts: z.array(digimonCardArtSchema).min(1) })
  .refine(...idsAgree);
export type DigimonHit = z.infer<typeof digimonHitSchema>;

export const digimonModel = cardModel('digimon', { card: digimonCardSchema, hit: digimonHitSchema }, hitProjection(hitShape), (card) => card.name.english);
