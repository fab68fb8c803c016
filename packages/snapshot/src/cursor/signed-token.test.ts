import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_LENGTH, openToken, signToken, verifyToken } from './signed-token.ts';

const key = randomBytes(32);

describe('signed tokens', () => {
  it('round-trip their payload and verify with their key only', () => {
    const token = signToken(key, 'x1|any|payload');
    const opened = openToken(token)!;
    expect(opened.payload).toBe('x1|any|payload');
    expect(verifyToken(key, opened)).toBe(true);
    expect(verifyToken(randomBytes(32), opened)).toBe(false);
  });

  it('refuse what is not shaped like one, including another spelling of the same bytes', () => {
    const token = signToken(key, 'x1|payload');
    const [payload, signature] = token.split('.') as [string, string];
    // The last base64url character of a 16-byte signature carries 2 unused bits: flipping them
    // decodes to the same bytes, but is not the token we issued.
    const last = signature.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = `${signature.slice(0, -1)}${alphabet[alphabet.indexOf(last) ^ 1]}`;
    expect(Buffer.from(sibling, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
    for (const bad of ['', '.', payload, `${payload}.`, `.${signature}`, `${payload}.${signature}.x`, `${payload}=.${signature}`,
      `${payload}.${signature.slice(1)}`, `${payload}.${sibling}`, 'x'.repeat(MAX_TOKEN_LENGTH + 1)]) {
      expect(openToken(bad), bad).toBeNull();
    }
  });
});
