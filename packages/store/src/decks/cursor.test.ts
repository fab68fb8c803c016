import { describe, expect, it } from 'vitest';
import { decodeDeckCursor, directionOf, encodeDeckCursor, type DeckListing } from './cursor.ts';
import { parseIsoMs, toIso } from './timestamps.ts';

const key = Buffer.alloc(32, 1);
const listing: DeckListing = { game: 'digimon', sort: 'likeCount', updatedSince: null };
const position = { value: 42, id: '3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b' };

describe('deck cursors', () => {
  it('round-trips a position and the start', () => {
    expect(decodeDeckCursor(key, encodeDeckCursor(key, listing, position), listing)).toEqual({ ok: true, position });
    expect(decodeDeckCursor(key, encodeDeckCursor(key, listing, null), listing)).toEqual({ ok: true, position: null });
    const since = { ...listing, sort: 'updatedAt' as const, updatedSince: -5 };
    const negative = { value: -62_000_000_000_000, id: position.id };
    expect(decodeDeckCursor(key, encodeDeckCursor(key, since, negative), since)).toEqual({ ok: true, position: negative });
  });

  it('is opaque (no readable parameters) and URL-safe', () => {
    const cursor = encodeDeckCursor(key, listing, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain('digimon');
  });

  it('binds game, sort, direction and filter', () => {
    const cursor = encodeDeckCursor(key, listing, position);
    expect(decodeDeckCursor(key, cursor, { ...listing, game: 'gundam' }).ok).toBe(false);
    expect(decodeDeckCursor(key, cursor, { ...listing, sort: 'viewCount' }).ok).toBe(false);
    const since = { game: 'digimon', sort: 'updatedAt' as const, updatedSince: 1000 };
    const withSince = encodeDeckCursor(key, since, position);
    expect(directionOf(since)).toBe('asc');
    expect(directionOf(listing)).toBe('desc');
    expect(decodeDeckCursor(key, withSince, { ...since, updatedSince: null }).ok).toBe(false);
    expect(decodeDeckCursor(key, withSince, { ...since, updatedSince: 1001 }).ok).toBe(false);
    expect(decodeDeckCursor(Buffer.alloc(32, 2), withSince, since).ok).toBe(false);
  });

  it('rejects every single-character change', () => {
    const cursor = encodeDeckCursor(key, listing, position);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < cursor.length; i++) {
      if (cursor[i] === '.') continue;
      const other = alphabet[(alphabet.indexOf(cursor[i]!) + 1) % alphabet.length]!;
      expect(decodeDeckCursor(key, cursor.slice(0, i) + other + cursor.slice(i + 1), listing).ok, `position ${i}`).toBe(false);
    }
    expect(decodeDeckCursor(key, 'a'.repeat(600), listing).ok).toBe(false);
  });
});

describe('timestamps', () => {
  it.each([
    ['2026-01-31T12:00:00Z', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T12:00:00.5Z', '2026-01-31T12:00:00.500Z'],
    ['2026-01-31T12:00:00.123999Z', '2026-01-31T12:00:00.123Z'],
    ['2026-01-31T13:30:00+01:30', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31T12:00:00-0000', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31t12:00z', '2026-01-31T12:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    // Edges of the zod-based parser, each as the hand-written one before it answered.
    ['2026-01-31T13:00+01:00', '2026-01-31T12:00:00.000Z'],
    ['2024-02-29t23:59:59.999999999Z', '2024-02-29T23:59:59.999Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
    ['0000-02-29T00:00:00+0000', '0000-02-29T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['2026-01-31T12:00:00-23:59', '2026-02-01T11:59:00.000Z'],
  ])('%s → %s', (text, iso) => {
    expect(toIso(parseIsoMs(text)!)).toBe(iso);
  });

  it.each(['2026-01-31', '2026-01-31T12:00:00', '2025-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-01-31T24:00:00Z', '2026-01-31T12:00:60Z', '2026-01-31 12:00:00Z', '10000-01-01T00:00:00Z', '2026-01-31T12:00:00+24:00', '', 'yesterday',
    '1900-02-29T00:00:00Z', '2026-01-31T12:00:00.1234567890Z', '0000-01-01T00:00:00+00:01', '9999-12-31T23:59:59.999-00:01', '2026-01-31T12:00:00+00:60',
    '2026-01-31T12:00:00+01', '2026-01-31T12:00:00 Z', '2026-01-31T12:00:00.Z', '2026-1-31T12:00:00Z', '2026-01-31T12Z'])(
    'rejects %j',
    (text) => {
      expect(parseIsoMs(text)).toBeNull();
    },
  );

  it('cursors minted before the envelope moved to @snapdeck/snapshot still decode, byte for byte', () => {
    // Minted by the code of fe5ebdb (this file's own HMAC, before the envelope moved to @snapdeck/snapshot).
    const minted = Buffer.alloc(32, 9);
    const since: DeckListing = { game: 'gundam', sort: 'updatedAt', updatedSince: 1700000000000 };
    const at = { value: 1700000123456, id: '0b4f6c1e-2d3a-4b5c-8d9e-0f1a2b3c4d5e' };
    const old = 'ZDF8Z3VuZGFtfHVwZGF0ZWRBdHxhfDE3MDAwMDAwMDAwMDB8MTcwMDAwMDEyMzQ1NnwwYjRmNmMxZS0yZDNhLTRiNWMtOGQ5ZS0wZjFhMmIzYzRkNWU.uSJ9KEG0pfB24cqL3fCZKw';
    expect(encodeDeckCursor(minted, since, at)).toBe(old);
    expect(decodeDeckCursor(minted, old, since)).toEqual({ ok: true, position: at });
    const start: DeckListing = { game: 'gundam', sort: 'createdAt', updatedSince: null };
    expect(encodeDeckCursor(minted, start, null)).toBe('ZDF8Z3VuZGFtfGNyZWF0ZWRBdHxkfC18LXwt._SdVJDPkw1wj22L23nAwjA');
    expect(decodeDeckCursor(minted, 'ZDF8Z3VuZGFtfGNyZWF0ZWRBdHxkfC18LXwt._SdVJDPkw1wj22L23nAwjA', start)).toEqual({ ok: true, position: null });
  });
});
