import { z } from 'zod';
import { CARD_ID_PATTERN, GAME_SLUGS, UUID_V4, findControlCharacter } from '@snapdeck/contract';
import { parseIsoMs } from './timestamps.ts';
import { VISIBILITIES } from './types.ts';

/** One line of a deck import file (decisions.md "Deck import line"): its schema and its parsing; import.ts has the rules. */

const deckId = z
  .string()
  .regex(UUID_V4, 'must be a UUID v4')
  .transform((id) => id.toLowerCase());

const timestamp = z.string().transform((text, ctx) => {
  const ms = parseIsoMs(text);
  if (ms === null) {
    ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date-time with a zone, like 2026-01-31T12:00:00.000Z' });
    return z.NEVER;
  }
  return ms;
});

const counter = z.number().int('must be an integer').nonnegative('must not be negative').max(Number.MAX_SAFE_INTEGER).default(0);

const cardEntry = z.strictObject({
  cardId: z.string().regex(CARD_ID_PATTERN, `must match ${CARD_ID_PATTERN.source}`),
  quantity: z.number().int('must be an integer').min(1, 'must be at least 1').max(999, 'must be at most 999'),
  zoneId: z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a lowercase dash-separated word, like main or digi-egg')
    .nullish(),
});

/**
 * A deck's name or owner: untrusted text, stored as given, but one line: control characters
 * (decisions.md "Cards", the same class as card names) are refused, since a line break in a
 * name would forge lines wherever a partner prints it.
 */
const oneLine = (max: number) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .superRefine((text, ctx) => {
      const found = findControlCharacter(text);
      if (found) ctx.addIssue({ code: 'custom', message: `must be one line: holds the control character ${found.codePoint} at character ${found.index}` });
    });

export const deckLineSchema = z
  .strictObject({
    id: deckId,
    gameId: z.enum(GAME_SLUGS, `must be one of ${GAME_SLUGS.join(', ')}`),
    name: oneLine(200),
    ownerDisplayName: oneLine(100),
    visibility: z.enum(VISIBILITIES, 'must be public or private'),
    createdAt: timestamp,
    updatedAt: timestamp,
    copyCount: counter,
    viewCount: counter,
    likeCount: counter,
    cards: z.array(cardEntry).max(1000, 'must have at most 1000 entries'),
  })
  .refine((deck) => deck.updatedAt >= deck.createdAt, { message: 'must not be earlier than createdAt', path: ['updatedAt'] });

export const deleteLineSchema = z.strictObject({ id: deckId, deleted: z.literal(true, 'must be true') });

export type DeckLine = z.output<typeof deckLineSchema>;
/** One import line as written in the JSONL file (decisions.md "Deck import line"). */
export type DeckImportLine = z.input<typeof deckLineSchema>;
export type ParsedLine = { kind: 'upsert'; deck: DeckLine } | { kind: 'delete'; id: string };

function formatIssue(issue: z.core.$ZodIssue): string {
  let path = '';
  for (const key of issue.path) path += typeof key === 'number' ? `[${key}]` : path ? `.${String(key)}` : String(key);
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Parses and validates one line; throws a plain Error with the reason (no line number). */
export function parseDeckLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('must be a JSON object');
  const isDelete = 'deleted' in value;
  const result = isDelete ? deleteLineSchema.safeParse(value) : deckLineSchema.safeParse(value);
  if (!result.success) {
    const { issues } = result.error;
    const more = issues.length > 3 ? `; and ${issues.length - 3} more` : '';
    throw new Error(issues.slice(0, 3).map(formatIssue).join('; ') + more);
  }
  return isDelete ? { kind: 'delete', id: (result.data as { id: string }).id } : { kind: 'upsert', deck: result.data as DeckLine };
}

