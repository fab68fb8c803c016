/**
 * Chrono Core cards. No public card database exists (see the raw data's SOURCES.md): the design
 * follows what the Sleeved deck exports show (a starting loadout of a pilot and the parts of a mech,
 * a 50-card main deck of upgrades and tactics, a sideboard) plus the fields every snapdeck game has.
 *
 * Card fields
 * - `id`, `objectID`, `cardNumber`: the card number (`WNR01-001`, `SD01-032`); equal.
 * - `name`, as printed. Cards the real exports show only by id are not in the catalog (no
 *   invented names): a deck export prints their id, the missing-card rule.
 * - `cardType`: Pilot and Core are the cards of the starting loadout (a deck entry without a zone
 *   whose card is one of these goes to zone `loadout`, everything else to `main`); Upgrade (a part
 *   played from the main deck over a loadout part), Tactic, Drone, Structure.
 * - `slot`: the mech slot a Core or Upgrade occupies (Frame, Head, Arms, Legs, Weapon), else null.
 * - `traits`; `cost`, `power`, `health` (integers, null when not printed or not known); `effect`
 *   ("" when none or not known); `rarity` (C, U, R, SR, SCR, or null when not known).
 * - Set: `setId` (WNR01, SD01, SD03), `setName`, `setOrder` (the number after the dash).
 * - Art: `cardImageUrl` (Sleeved CDN), `hasAltArt`, `cardArts` (`{id, type, url}`, the main art first).
 *
 * Hit: id, objectID, cardNumber, name, cardType, slot, traits, cost, power, health, effect, rarity,
 * setId, setName, cardImageUrl, hasAltArt and cardArts.
 */
import { z } from 'zod';
import { apiId, cardIdOf, hasAltArtWhenManyArts, httpUrl, idFields, nameText, sameIds, stat } from './fields.ts';
import { hitProjection } from './hit.ts';
import { cardModel } from './model.ts';

export const CHRONO_CORE_CARD_TYPES = ['Pilot', 'Core', 'Upgrade', 'Tactic', 'Drone', 'Structure'] as const;
export const CHRONO_CORE_SLOTS = ['Frame', 'Head', 'Arms', 'Legs', 'Weapon'] as const;
export type ChronoCoreCardType = (typeof CHRONO_CORE_CARD_TYPES)[number];

const cardId = cardIdOf('chrono-core');

export const chronoCoreCardArtSchema = z.strictObject({ id: apiId(), type: z.string().min(1), url: httpUrl });

const shape = {
  ...idFields(cardId, 'id', 'objectID', 'cardNumber'),
  name: nameText,
  cardType: z.enum(CHRONO_CORE_CARD_TYPES),
  slot: z.enum(CHRONO_CORE_SLOTS).nullable(),
  traits: z.array(z.string().min(1)),
  cost: stat,
  power: stat,
  health: stat,
  effect: z.string(),
  rarity: z.string().min(1).nullable(),
  setId: z.string().regex(/^[A-Z]{2,}\d{2}$/),
  setName: nameText,
  cardImageUrl: httpUrl,
  hasAltArt: z.boolean(),
  cardArts: z.array(chronoCoreCardArtSchema).min(1),
};

const idsAgree = sameIds('id', 'cardNumber', 'objectID');

export const chronoCoreCardSchema = z
  .strictObject({ ...shape, setOrder: z.number().int().nonnegative() })
  .refine(...idsAgree)
  .refine((c) => c.id.startsWith(`${c.setId}-`), { message: 'the card number starts with the set id', path: ['setId'] })
  .refine(...hasAltArtWhenManyArts('art'));
export type ChronoCoreCard = z.infer<typeof chronoCoreCardSchema>;

/** The hit is the card without `setOrder`: a Chrono Core card is small enough to list whole. */
export const chronoCoreHitSchema = z.strictObject(shape).refine(...idsAgree);
export type ChronoCoreHit = z.infer<typeof chronoCoreHitSchema>;

export const chronoCoreModel = cardModel('chrono-core', { card: chronoCoreCardSchema, hit: chronoCoreHitSchema }, hitProjection(shape), (card) => card.name);
