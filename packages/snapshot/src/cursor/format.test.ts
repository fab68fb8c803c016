import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveCursorKey, encodeCursor, parseCursor, verifyCursor } from './format.ts';

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

  it('a cursor minted before the envelope moved to signed-token.ts still decodes and verifies, byte for byte', () => {
    // Minted by the code of fe5ebdb (cursor.ts before the envelope moved to signed-token.ts): cursors
    // in partners' hands keep working.
    const minted = 'YzF8ZGlnaW1vbnwxMDB8MjAyNi0xMS0yMlQxMS0wNS0xMi0zNDVaLWExYjJjM3w3.K2mOgcdBkDLI213TnlZRKA';
    const versionKey = deriveCursorKey(Buffer.alloc(32, 7), 'digimon', position.version);
    expect(versionKey.toString('hex')).toBe('4290f1ddb1e8dcfa3da36be7d9888edc0254ae732b833fb196174273e70813d2');
    expect(encodeCursor(versionKey, position)).toBe(minted);
    const parsed = parseCursor(minted)!;
    expect(parsed).toMatchObject(position);
    expect(verifyCursor(versionKey, parsed)).toBe(true);
  });
});
