import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ACCESS_SERIALIZERS, accessLine } from './access-log.ts';

/** The line pino writes for `info(fields, 'request')` through a child with the access log's serializers. */
function pinoLine(fields: object, time: number): { line: string; bindings: string } {
  let line = '';
  const log = pino({ level: 'info', timestamp: () => `,"time":${time}` }, { write: (text: string) => void (line = text) });
  const lines = log.child({}, { serializers: ACCESS_SERIALIZERS });
  lines.info(fields, 'request');
  return { line, bindings: (lines as unknown as Record<symbol, string>)[pino.symbols.chindingsSym]! };
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
