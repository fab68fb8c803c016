import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { negotiateEncoding } from './accept-encoding.ts';

const app = new Hono();
app.get('/', (c) => c.text(negotiateEncoding(c)));

async function negotiated(acceptEncoding: string | undefined): Promise<string> {
  const response = await app.request('/', { headers: acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding } });
  return response.text();
}

describe('negotiateEncoding', () => {
  // The table deploy/varnish normalises by (test/varnish.test.ts): the server's order, q > 0.
  it.each([
    ['gzip, deflate, br', 'br'],
    ['br', 'br'],
    ['*', 'br'],
    ['br;q=0.5, gzip;q=1', 'br'],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['deflate, gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip, br;q=0', 'gzip'],
    ['x-gzip', 'gzip'],
    [undefined, 'identity'],
    ['', 'identity'],
    ['identity', 'identity'],
    ['deflate', 'identity'],
    ['br;q=0, gzip;q=0.0', 'identity'],
    ['br;q=abc, *;q=-1', 'br'],
    // `*` covers only the codings the header does not name: a refused br stays refused.
    ['br;q=0, *', 'gzip'],
    ['*, br;q=0', 'gzip'],
    ['gzip;q=0, *', 'br'],
    ['br;q=0, x-gzip;q=0, *', 'identity'],
    [';;,,', 'identity'],
  ])('Accept-Encoding %j → %s', async (acceptEncoding, expected) => {
    expect(await negotiated(acceptEncoding)).toBe(expected);
    // The second time comes from the remembered answer: the same.
    expect(await negotiated(acceptEncoding)).toBe(expected);
  });
});
