/**
 * The zod pieces every game's card schema is built from, so that a rule all games share (what a
 * card id, an image URL or a printed number may be; which id fields must agree) is spelled once.
 * Each game's own fields stay in its module.
 */
import { z } from 'zod';
import { CARD_ID_PATTERN, findGame, type GameSlug } from '../games.ts';
import { findControlCharacter } from '../limits.ts';

/** An id the API accepts in a path (CARD_ID_PATTERN) and, when given, of the narrower `form`. */
export function apiId(form?: RegExp) {
  const id = z.string().regex(CARD_ID_PATTERN);
  return form ? id.regex(form) : id;
}

/** A card id of one game: an id the API accepts, of the game's own form. */
export function cardIdOf(game: GameSlug) {
  return apiId(findGame(game)!.cardIdPattern);
}

/** Card images and pages are links a browser opens: http or https only. */
export const httpUrl = z.url({ protocol: /^https?$/ });

/**
 * A name (every `name` field and `setName`: text an export may print on one line): not empty, and
 * without the control characters of decisions.md "Cards", so a catalog cannot forge lines.
 */
export const nameText = z
  .string()
  .min(1)
  .superRefine((text, ctx) => {
    const found = findControlCharacter(text);
    if (found) ctx.addIssue({ code: 'custom', message: `holds the control character ${found.codePoint} at character ${found.index}; a name is one line of text` });
  });

/** A number printed on a card (cost, power, …): null when the card has none or it is not known. */
export const stat = z.number().int().nonnegative().nullable();

/**
 * The fields that carry a card's id under several names (`id`, `objectID`, and `cardNumber` where
 * the game prints one; sameIds checks that they agree), in the order the game serves them.
 */
export function idFields<Id extends z.ZodType, Key extends string>(id: Id, ...keys: [Key, ...Key[]]): Record<Key, Id> {
  return Object.fromEntries(keys.map((key) => [key, id])) as Record<Key, Id>;
}

/** A zod refinement as `.refine(...refinement)` takes it: the check, then where and how it fails. */
type Refinement<T> = [check: (value: T) => boolean, params: { message: string; path: string[] }];

/**
 * The id fields of a card (`id` and `objectID`, and `cardNumber` where the game prints one) are one
 * value under several names; a mismatch is reported on `objectID`.
 */
export function sameIds<Key extends string>(...keys: [Key, Key, ...Key[]]): Refinement<Record<Key, string>> {
  const names = `${keys.slice(0, -1).join(', ')} and ${keys.at(-1)}`;
  return [(card) => keys.every((key) => card[key] === card[keys[0]]), { message: `${names} must be equal`, path: ['objectID'] }];
}

/**
 * `hasAltArt` of a game whose `cardArts` lists every art (printing, edition), the main one first:
 * true exactly when there is more than one.
 */
export function hasAltArtWhenManyArts(art: string): Refinement<{ hasAltArt: boolean; cardArts: readonly unknown[] }> {
  return [
    (card) => card.hasAltArt === card.cardArts.length > 1,
    { message: `hasAltArt must be true exactly when there is more than one ${art}`, path: ['hasAltArt'] },
  ];
}
