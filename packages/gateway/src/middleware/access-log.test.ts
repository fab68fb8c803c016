import { hostname } from 'node:os';
import decodeUriComponent from 'decode-uri-component';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { bindingsOf } from '../log.ts';
import { ACCESS_SERIALIZERS, accessLine, redactedUrl } from './access-log.ts';

/**
 * The line pino writes for `info(fields, 'request')` through a child with the access log's
 * serializers, with pino's default base (`base` undefined) or the one given; and the bindings the
 * gateway's log (log.ts) writes for that base.
 */
function pinoLine(fields: object, time: number, base?: { pid: number; hostname: string }): { line: string; bindings: string } {
  let line = '';
  const log = pino({ level: 'info', timestamp: () => `,"time":${time}`, ...(base ? { base } : {}) }, { write: (text: string) => void (line = text) });
  const lines = log.child({}, { serializers: ACCESS_SERIALIZERS });
  lines.info(fields, 'request');
  return { line, bindings: bindingsOf(base ?? { pid: process.pid, hostname: hostname() }) };
}

const URLS = [
  'http://127.0.0.1:8787/v1/games/digimon/cards/BT1-001',
  'http://h/v1/games/digimon/cards?hitsPerPage=100&cursor=abc',
  'http://h/v1/decks/0b8f0c1e-2d3a-4b5c-9d6e-7f8091a2b3c4?token=st_0123456789abcdef&format=text',
  'http://h/v1/decks/pd_0123456789abcdef0123456789abcdef',
  'http://h/v1/x?a=%22quoted%22&b=back%5Cslash&hitsPerPage=%22x%22%5C',
  'http://h/v1/%22quote%22/back%5Cslash/%C3%A9t%C3%A9/%E2%88%80',
  'http://h/v1/new%0Aline/tab%09/nul%00/del%7F/c1%C2%85',
  `http://h/v1/games/digimon/cards?hitsPerPage=${'9'.repeat(120)}&limit=${'"'.repeat(40)}`,
  'http://h/v1/%ZZbad-escape?%ZZ=1&to%6Ben=2&sort=%E2%80%A8',
  'http://h/',
];

/** redactedUrl as first written (slice, split, map, join): the reading the fast one must keep. */
function plainRedactedUrl(url: string): string {
  const logged = new Set(['hitsPerPage', 'limit', 'sort', 'gameId', 'updatedSince', 'format', 'since']);
  const decoded = (raw: string, plus: boolean): string | null => {
    if (!raw.includes('%') && !(plus && raw.includes('+'))) return raw;
    try {
      return decodeURIComponent(plus ? raw.replace(/\+/g, ' ') : raw);
    } catch {
      return null;
    }
  };
  const part = (p: string): string => {
    const eq = p.indexOf('=');
    const name = decoded(eq === -1 ? p : p.slice(0, eq), true);
    const shown = name !== null && /^[A-Za-z][A-Za-z0-9_-]{0,31}$/.test(name) ? name : '?';
    // since: a card version is logged, anything else (a deck change cursor) is not.
    const value = p.slice(eq + 1);
    const shownValue = name !== null && logged.has(name) && (name !== 'since' || /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[0-9a-f]{6}$/.test(value));
    return eq === -1 ? shown : `${shown}=${shownValue ? value : '[REDACTED]'}`;
  };
  const schemeEnd = url.indexOf('://');
  const pathStart = schemeEnd === -1 ? 0 : url.indexOf('/', schemeEnd + 3);
  const pathAndQuery = pathStart === -1 ? '/' : url.slice(pathStart);
  const q = pathAndQuery.indexOf('?');
  const path = q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = q === -1 ? '' : `?${pathAndQuery.slice(q + 1).split('&').map(part).join('&')}`;
  const text = `${decodeUriComponent(path)}${query}`;
  let meaning = text;
  for (let round = 0; round < 3; round += 1) meaning = decodeUriComponent(meaning);
  const secret = /(sd_live_|st_|pd_)[0-9a-z]{16,}/gi;
  return meaning.search(secret) === -1 ? text : meaning.replace(secret, '$1[REDACTED]');
}

describe('redactedUrl', () => {
  it('reads every URL as the plain version does: paths, parameters, escapes, secrets', () => {
    const paths = ['', '/', '/v1/games/digimon/cards', '/v1/decks/pd_0123456789abcdef0123456789abcdef', '/v1/%70d_0123456789ABCDEF0123456789abcdef/x', '/v1/%ZZ/%C3%A9', '/a_b/c', '/v1/decks/pd%5F0123456789abcdef0123456789abcdef%ZZ', '/v1/decks/pd%255f0123456789abcdef0123456789abcdef'];
    const parameters = ['', 'hitsPerPage=100', 'cursor=abc', 'token=st_0123456789abcdef0123456789abcdef', 'to%6Ben=2', '%ZZ=1', 'a+b=1', 'limit', '=x', 'x=sd_live_0123456789abcdef0123456789abcdef', 'sort=a_b', 'hitsPerPage=sd%5Flive%5F0123456789abcdef0123456789abcdef', 'since=%70d_0123456789abcdef0123456789abcdef', 'since=2026-11-22T11-05-12-345Z-1a2b3c', 'since=ZjF8ZGlnaW1vbg.q1wKZ3GmZb0oZr2FJQ0x3A', 'gameId=st_%33123456789abcdef0123456789abcdef', 'limit=2026%3A00'];
    let compared = 0;
    for (const origin of ['http://h:1', 'https://example.com', '']) {
      for (const path of paths) {
        for (const query of ['', '?', ...parameters.flatMap((a) => parameters.map((b) => `?${a}&${b}`)), `?${parameters.join('&')}`, '?a=1&&b=2', '?x?y=1']) {
          const url = `${origin}${path}${query}`;
          expect(redactedUrl(url), url).toBe(plainRedactedUrl(url));
          compared += 1;
        }
      }
    }
    expect(compared).toBeGreaterThan(4_000);
  });
});

describe('accessLine', () => {
  it("writes pino's line for the same fields, byte for byte", () => {
    let compared = 0;
    for (const [u, url] of URLS.entries()) {
      for (const requestId of [undefined, 'req-1', '8d7e3c1a-5b2f-4e9d-a6c0-1f2e3d4c5b6a']) {
        for (const keyId of [undefined, 'key_0123456789ab']) {
          for (const client of [undefined, '@snapdeck/client/1.1.0', 'curl 8 (not a client name)', 'tool/1.0 sd_live_0123456789abcdef0123456789abcdef', 'tool/sd_live_0123456789abcdef0123456789abcdef']) {
            const fields = {
              requestId,
              method: u % 3 === 0 ? 'POST' : 'GET',
              route: u % 2 === 0 ? '/v1/games/:slug/cards' : 'unmatched',
              url,
              status: u % 2 === 0 ? 200 : 404,
              durationMs: [0, 0.001, 12.345, 1234.5][u % 4]!,
              bytes: u * 1043,
              keyId,
              client,
            };
            const time = 1_764_201_600_000 + u;
            const { line, bindings } = pinoLine(fields, time);
            expect(accessLine(fields, time, bindings)).toBe(line);
            compared += 1;
          }
        }
      }
    }
    expect(compared).toBe(URLS.length * 3 * 2 * 5);
  });

  it("writes pino's bindings for any host name (the log's own part of every line)", () => {
    const fields = { requestId: 'r', method: 'GET', route: 'unmatched', url: 'http://h/', status: 404, durationMs: 1, bytes: 2, keyId: undefined, client: undefined };
    for (const name of ['web-1', 'host.example.com', 'quote"back\\slash', 'tab\tnew\nline', 'été-∀', '']) {
      const { line, bindings } = pinoLine(fields, 1, { pid: 4_194_304, hostname: name });
      expect(accessLine(fields, 1, bindings)).toBe(line);
    }
  });

  it('masks the URL and shortens a secret in X-Client, as the serializers do', () => {
    const line = JSON.parse(
      accessLine(
        { requestId: 'r', method: 'GET', route: 'unmatched', url: 'http://h/v1/decks/pd_0123456789abcdef0123456789abcdef?token=x', status: 404, durationMs: 1, bytes: 2, keyId: undefined, client: 'tool/sd_live_0123456789abcdef0123456789abcdef' },
        1,
        ',"pid":1',
      ),
    ) as { url: string; client: string };
    expect(line.url).not.toContain('0123456789abcdef0123');
    expect(line.url).toContain('token=[REDACTED]');
    expect(line.client).toMatch(/^tool\//);
    expect(line.client).not.toContain('0123456789abcdef0123');
  });
});
