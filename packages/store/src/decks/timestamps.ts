import { z } from 'zod';

/**
 * Deck timestamps are stored as integer epoch milliseconds (they sort and compare as numbers) and
 * served as ISO 8601 with milliseconds in UTC (interface.md §2.2).
 */

/** Smallest and largest instants whose ISO form has a four-digit year (0000 … 9999). */
const MIN_MS = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * RFC 3339 with a zone, checked by zod: the calendar (month lengths, leap years) and the range of
 * every field, the offset's included. It needs seconds, `T`, `Z` and `±hh:mm` as written here.
 */
const RFC_3339 = z.iso.datetime({ offset: true });

/**
 * What this service accepts, a little wider than zod's RFC 3339 (and kept so: clients send it):
 * a lower-case `t` or `z` (RFC 3339 §5.6 allows them), a time without seconds and an offset
 * without its colon (ISO 8601 allows both), at most nine fractional digits. A zone is required:
 * a local time would be read in the server's zone, which differs per host. Matches are rewritten
 * to zod's form, at millisecond precision, which is also the form Date.parse reads by the spec.
 */
const ACCEPTED = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:[Zz]|([+-]\d{2}):?(\d{2}))$/;

/**
 * Parses an ISO 8601 date-time into epoch milliseconds (digits past the millisecond are dropped),
 * or null when it is not one: wrong shape, no zone, an impossible date such as 2026-02-30, or an
 * instant outside the years 0000–9999 in UTC.
 */
export function parseIsoMs(text: string): number | null {
  const match = ACCEPTED.exec(text);
  if (!match) return null;
  const [, date, hourMinute, second = '00', fraction = '', offsetHour, offsetMinute] = match;
  const zone = offsetHour === undefined ? 'Z' : `${offsetHour}:${offsetMinute}`;
  const rfc3339 = `${date}T${hourMinute}:${second}.${fraction.padEnd(3, '0').slice(0, 3)}${zone}`;
  if (!RFC_3339.safeParse(rfc3339).success) return null;
  const value = Date.parse(rfc3339);
  return value >= MIN_MS && value <= MAX_MS ? value : null;
}

/** Epoch milliseconds → `2026-11-22T11:05:12.345Z`. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
