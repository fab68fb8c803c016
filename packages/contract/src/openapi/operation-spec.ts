/**
 * The building blocks of the OpenAPI document's operations: what one operation says (OperationSpec)
 * and the small helpers its entries are written with. operations.ts lists the operations;
 * document.ts turns them into the document.
 */
import { ERRORS, type ErrorCode } from '../errors.ts';
import { GAMES, type GameSlug } from '../games.ts';
import type { JsonSchema } from './schemas.ts';

export type Media = Record<string, { schema: JsonSchema; examples?: Record<string, { summary: string; value: unknown }> }>;

export interface ErrorSpec {
  status: number;
  description: string;
  errors: ErrorCode[];
}

export interface OperationSpec {
  path: string;
  /** GET when absent. Every 200 of a GET has an ETag and answers If-None-Match with 304. */
  method?: 'post';
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /**
   * Who may call it, and what its quota counts (rate-limit headers): `key` (when absent) needs
   * X-API-Key and is metered per key; `address` needs no key and is metered per client address;
   * `anyone` needs no key and is not metered.
   */
  access?: 'key' | 'address' | 'anyone';
  parameters?: unknown[];
  requestBody?: unknown;
  ok: { description: string; content: Media };
  /** The errors particular to this operation: 401 and 429 follow from `access`, 500 is on every one. */
  errors?: ErrorSpec[];
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });
export const jsonOf = (schema: JsonSchema): Media => ({ 'application/json': { schema } });
export const quoted = (codes: ErrorCode[]) => codes.map((code) => `"${ERRORS[code]}"`).join(', ');

export const TAGS = {
  games: 'Games',
  cards: 'Cards',
  decks: 'Decks',
  search: 'Search',
  meta: 'Meta',
  game: (slug: GameSlug) => `${GAMES.find((g) => g.slug === slug)!.displayName} cards`,
};

export const err = (status: number, description: string, ...errors: ErrorCode[]): ErrorSpec => ({ status, description, errors });
