/**
 * "No client input may produce a 500 or crash the process": odd bytes, broken percent-encodings,
 * repeated, empty and oversized parameters, path tricks and bad headers on every route, with and
 * without a key. Every answer must be a 2xx/3xx/4xx with a JSON error body for the 4xx.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { startDeckEnv, type DeckTestEnv } from './helpers/decks.ts';

let env: DeckTestEnv;
beforeAll(async () => {
  env = await startDeckEnv({ digimon: 20, gundam: 20, 'grand-archive': 20, 'chrono-core': 20 });
});
afterAll(() => env?.close());

const NASTY = ['', '%', '%E0%A4%A', '%ff%fe', '%00', '..%2F..%2Fetc%2Fpasswd', 'a'.repeat(5000), '%20', '-1', '1e3', '[]', '{}', '%22%3Cscript%3E', 'null', 'undefined', '0x10', '１２'];
const DECK = '3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b';

function urls(): string[] {
  const out: string[] = [];
  for (const v of NASTY) {
    out.push(`/v1/games/${v}/cards`, `/v1/games/digimon/cards/${v}`, `/v1/decks/${v}`, `/v1/decks/${v}/text?format=snapdeck`);
    out.push(`/v1/games/digimon/cards?hitsPerPage=${v}`, `/v1/games/digimon/cards?cursor=${v}`, `/v1/games/digimon/cards?hitsPerPage=5&cursor=${v}&cursor=x`);
    out.push(`/v1/decks/public?gameId=${v}`, `/v1/decks/public?gameId=digimon&limit=${v}&sort=${v}`, `/v1/decks/public?gameId=digimon&updatedSince=${v}`, `/v1/decks/public?gameId=digimon&startAfter=${v}`);
    out.push(`/v1/decks/${DECK}?format=${v}&token=${v}`, `/v1/decks/${DECK}/text?format=${v}&token=${v}`, `/${v}`, `/v1/${v}`);
  }
  return out;
}

describe('hostile input', () => {
  it('never gets a 5xx, on any route, with or without a key', async () => {
    const failures: string[] = [];
    for (const path of urls()) {
      const variants: Array<Record<string, string>> = [{}, { 'X-API-Key': env.key }, { 'X-API-Key': 'sd_live_%00', 'Accept-Encoding': 'br;q=abc, *;q=-1', 'If-None-Match': '"' }];
      for (const headers of variants) {
        const response = await fetch(`${env.gateway.url}${path}`, { headers });
        const text = await response.text();
        if (response.status >= 500) failures.push(`${response.status} ${path} ${text.slice(0, 80)}`);
        if (response.status >= 400) expect(JSON.parse(text), path).toHaveProperty('error');
      }
    }
    expect(failures).toEqual([]);
  });

  it('bad POST bodies are 400s, never 5xx', async () => {
    for (const body of ['', '\u0000', '{"ids":', '{"ids":[1,2]}', '{"ids":"x"}', '[]', 'null', '{"ids":[' + '"x",'.repeat(100) + '"x"]}', '\xff\xfe']) {
      const response = await fetch(`${env.gateway.base}/decks/details`, { method: 'POST', headers: { 'X-API-Key': env.key, 'Content-Type': 'application/json' }, body });
      expect(response.status, body.slice(0, 20)).toBe(400);
    }
  });

  // Found by test/generated/openapi-requests.suite.ts (a 16 KiB cardId): Node's parser answered a
  // bare 431 with no body and none of the contract's headers.
  it('a request line or headers over 16 KiB get the contract\'s JSON 431, with nosniff and CORS', async () => {
    for (const [path, headers] of [
      [`/v1/games/digimon/cards/${'x'.repeat(17_000)}`, { 'X-API-Key': env.key }],
      ['/v1/games', { 'X-API-Key': env.key, 'X-Padding': 'p'.repeat(17_000) }],
    ] as const) {
      const response = await fetch(`${env.gateway.url}${path}`, { headers });
      expect(response.status).toBe(431);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({ error: ERRORS.headersTooLarge });
    }
    // The gateway goes on serving.
    expect((await fetch(`${env.gateway.base}/games`, { headers: { 'X-API-Key': env.key } })).status).toBe(200);
  });

  it('bytes that are not HTTP get a JSON 400 and the connection is closed', async () => {
    const { port } = new URL(env.gateway.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /v1/games HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head).toContain('X-Content-Type-Options: nosniff');
    expect(head).toContain('Access-Control-Allow-Origin: *');
    expect(JSON.parse(body!)).toEqual({ error: ERRORS.badRequest });
  });
});
