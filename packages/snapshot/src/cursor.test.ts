import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeCursor, parseCursor, verifyCursor } from './cursor.ts';

const key = randomBytes(32);
const position = { game: 'digimon', hitsPerPage: 100, version: '2026-11-22T11-05-12-345Z-a1b2c3', page: 7 };

describe('cursors', () => {
  it('round-trip and verify with their key only', () => {
    const token = encodeCursor(key, position);
    const parsed = parseCursor(token)!;
    expect(parsed).toMatchObject(position);
    expect(verifyCursor(key, parsed)).toBe(true);
    expect(verifyCursor(randomBytes(32), parsed)).toBe(false);
  });

  it('reject anything not produced by encodeCursor', () => {
    const token = encodeCursor(key, position);
    const [payload, signature] = token.split('.') as [string, string];
    const forged = Buffer.from('c1|digimon|100|2026-11-22T11-05-12-345Z-a1b2c3|8').toString('base64url');
    const bad = ['', '.', 'abc', `${payload}.`, `.${signature}`, `${payload}.${signature}.x`, `${payload}=.${signature}`, `${payload}.${signature.slice(1)}`,
      'x'.repeat(600), `${Buffer.from('c1|digimon|0100|v|1').toString('base64url')}.${signature}`,
      `${Buffer.from('c1|digimon|100|v|-1').toString('base64url')}.${signature}`];
    for (const token of bad) expect(parseCursor(token), token).toBeNull();
    const parsedForgery = parseCursor(`${forged}.${signature}`)!;
    expect(parsedForgery).not.toBeNull();
    expect(verifyCursor(key, parsedForgery)).toBe(false);
  });
});
