/** What the real-data importers share: reading the raw files, cleaning text, the import error. */
import { readFileSync } from 'node:fs';
import type { GameSlug } from '@snapdeck/contract';

export type Json = Record<string, unknown>;

export function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
}

export function readArray(file: string, member?: string): Json[] {
  const value = readJson(file);
  const list = member === undefined ? value : (value as Json | null)?.[member];
  if (!Array.isArray(list)) throw new Error(`${file}: expected ${member ? `a "${member}" array` : 'an array'}`);
  return list as Json[];
}

/** Thrown for a record that cannot become a card; names the record so the data can be fixed. */
export class ImportError extends Error {
  constructor(game: GameSlug, record: unknown, reason: string) {
    super(`${game}: cannot import record ${JSON.stringify(record)?.slice(0, 2000)}\n  reason: ${reason}`);
    this.name = 'ImportError';
  }
}

/** Reads typed members of a source record, failing with the record when a member is off. */
export class Reader {
  constructor(readonly game: GameSlug, readonly record: Json) {}

  fail(reason: string): never {
    throw new ImportError(this.game, this.record, reason);
  }

  str(key: string): string {
    const v = this.record[key];
    if (typeof v !== 'string') this.fail(`${key} is not a string`);
    return v;
  }

  optStr(key: string): string | null {
    const v = this.record[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string') this.fail(`${key} is not a string or null`);
    return v;
  }

  optInt(key: string): number | null {
    const v = this.record[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'number' || !Number.isInteger(v)) this.fail(`${key} is not an integer or null`);
    return v;
  }

  strings(key: string): string[] {
    const v = this.record[key];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) this.fail(`${key} is not an array of strings`);
    return v as string[];
  }

  records(key: string): Json[] {
    const v = this.record[key];
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'object' && x !== null)) this.fail(`${key} is not an array of objects`);
    return v as Json[];
  }
}

/**
 * Source texts carry no-break spaces and trailing blanks from web scraping; rules text means plain
 * spaces, so they are normalised (line breaks are kept).
 */
export function cleanText(text: string): string {
  return text
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((line) => line.replace(/[ \t]+$/, ''))
    .join('\n')
    .trim();
}

/** TakaOtaku writes "-" for an empty value. */
export const takaText = (value: string | null): string | null => {
  if (value === null) return null;
  const text = cleanText(value);
  return text === '' || text === '-' ? null : text;
};

export const FULLWIDTH_DIGITS = /[０-９]/g;
export const toAsciiDigits = (s: string) => s.replace(FULLWIDTH_DIGITS, (d) => String(d.charCodeAt(0) - 0xff10));

/** The number after the dash of a card number: BT1-010 → 10. */
export const numberAfterDash = (id: string) => Number(/-(\d+)$/.exec(id)?.[1] ?? '0');
