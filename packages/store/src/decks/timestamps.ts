/**
 * Deck timestamps are stored as integer epoch milliseconds (they sort and compare as numbers) and
 * served as ISO 8601 with milliseconds in UTC (interface.md §2.2).
 */

/** Smallest and largest instants whose ISO form has a four-digit year (0000 … 9999). */
const MIN_MS = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An ISO 8601 date-time with an explicit zone (`Z` or `±hh:mm`), fractional seconds optional.
 * A zone is required: a local time would be read in the server's zone, which differs per host.
 */
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Parses an ISO 8601 date-time into epoch milliseconds (digits past the millisecond are dropped),
 * or null when it is not one: wrong shape, no zone, or an impossible date such as 2026-02-30.
 */
export function parseIsoMs(text: string): number | null {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute] = match as unknown as [string, string, string, string, string, string];
  const second = match[6] ?? '0';
  const fraction = match[7] ?? '';
  const zone = match[8]!;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  // Date.UTC treats years 0–99 as 1900–1999; setUTCFullYear does not.
  const date = new Date(Date.UTC(2000, mo - 1, d, h, mi, s, ms));
  date.setUTCFullYear(y);
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null; // 2026-02-30 rolled over
  let value = date.getTime();
  if (zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const offsetH = Number(digits.slice(0, 2));
    const offsetM = Number(digits.slice(2, 4));
    if (offsetH > 23 || offsetM > 59) return null;
    value -= sign * (offsetH * 60 + offsetM) * 60_000;
  }
  return value >= MIN_MS && value <= MAX_MS ? value : null;
}

/** Epoch milliseconds → `2026-11-22T11:05:12.345Z`. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
