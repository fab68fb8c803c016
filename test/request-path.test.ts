/**
 * The request-path check, the gateway's half: a request path not in normal form (a `.` or `..` segment,
 * plain or percent-encoded; an encoded `/`; `//`) is answered 400 `Invalid request path` before any
 * other check (decisions.md "Errors and precedence"), so that no rule of a proxy in front, matching
 * the path as sent, can be sidestepped by a spelling the gateway would resolve. No Varnish here:
 * requests go straight to a real gateway with their target exactly as written
 * (test/helpers/raw-target.ts; fetch() would resolve the dot segments before sending).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { DeckStore } from '@snapdeck/store';
import { guardedPaths, spellingsOf } from './helpers/path-spellings.ts';
import { idGenerator, importLines, startDeckEnv, withDb, type DeckTestEnv } from './helpers/decks.ts';
import { requestTarget } from './helpers/raw-target.ts';
import type { RawResponse } from './helpers/varnish-server.ts';

let env: DeckTestEnv;
const newId = idGenerator(2302);
const deck = newId();
let link: string;
const PLACEHOLDER_PATHS = guardedPaths({ deck, card: 'CARD', token: 'TOKEN' });
const REFUSED = PLACEHOLDER_PATHS.flatMap((p) => spellingsOf(p.path).filter((s) => s.gateway === 'invalid path'));

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 20 });
  const cards = env.catalogs.digimon!.slice(0, 2).map((card) => ({ cardId: card.id, quantity: 2 }));
  await importLines(env.dbFile, [{ id: deck, gameId: 'digimon', name: 'private', ownerDisplayName: 't', visibility: 'private', createdAt: '2026-03-01T10:00:00.000Z', updatedAt: '2026-03-01T10:00:00.000Z', cards }]);
  link = withDb(env.dbFile, (db) => new DeckStore(db).createPrivateLink(deck)!);
});
afterAll(() => env?.close());

const send = (target: string, options: { method?: string; headers?: Record<string, string> } = {}) => requestTarget(env.gateway.url, target, options);

function expectInvalidPath(r: RawResponse, where: string): void {
  expect(r.status, where).toBe(400);
  expect(JSON.parse(r.body.toString()), where).toEqual({ error: ERRORS.invalidPath });
  expect(r.headers['content-type'], where).toBe('application/json');
  expect(r.headers['cache-control'], where).toBe('no-store');
  expect(r.headers['x-content-type-options'], where).toBe('nosniff');
  expect(r.headers['access-control-allow-origin'], where).toBe('*');
  expect(r.headers['x-request-id'], where).toMatch(/^[A-Za-z0-9._-]+$/);
}

describe('a path not in normal form is a 400 at the gateway', () => {
  it(`answers 400 "Invalid request path" (JSON, common headers, no-store) to all ${REFUSED.length} spellings of ${PLACEHOLDER_PATHS.length} paths with dot segments, encoded dots or slashes, or //`, async () => {
    const card = env.catalogs.digimon![0]!.id;
    let refused = 0;
    for (const guarded of guardedPaths({ deck, card, token: link })) {
      const headers: Record<string, string> = guarded.key ? { 'X-API-Key': env.key } : {};
      // Spelled normally, the path is answered by its route (whatever that answer is).
      const normal = await send(guarded.path + guarded.query, { method: guarded.method, headers });
      expect(normal.status === 400 && normal.body.toString() === JSON.stringify({ error: ERRORS.invalidPath }), guarded.path).toBe(false);
      for (const spelling of spellingsOf(guarded.path)) {
        const target = spelling.target + guarded.query;
        const r = await send(target, { method: guarded.method, headers });
        if (spelling.gateway === 'invalid path') {
          expectInvalidPath(r, target);
          refused++;
        } else if (spelling.gateway === 'node-server') {
          // @hono/node-server refuses a backslash in the path before the app sees the request.
          expect(r.status, target).toBe(400);
        }
      }
    }
    expect(refused).toBe(REFUSED.length);
  });

  it('comes before every other check: 401, 403, 404, 405, 429, preflights; and counts nothing against a quota', async () => {
    const browseless = env.gateway.createKey({ name: 'no scopes', quota: 100 });
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['GET', '/x/../v1/games', {}, 401],
      ['GET', '/x/../v1/games', { 'X-API-Key': `sd_live_${'0'.repeat(32)}` }, 401],
      ['GET', '/v1/decks/%2e/public?gameId=digimon', { 'X-API-Key': browseless }, 403],
      ['GET', '/v1/games/nope/%2E%2E/nope/cards', { 'X-API-Key': env.key }, 404],
      ['GET', '/nothing/../here', {}, 404],
      ['DELETE', '/x/../v1/games', { 'X-API-Key': env.key }, 405],
      ['POST', '/healthz/.', {}, 405],
      ['OPTIONS', '/x/../v1/games', { Origin: 'https://example.com', 'Access-Control-Request-Method': 'GET' }, 204],
      ['HEAD', '/x/../healthz', {}, 200],
      ['GET', `/v1/decks/${deck}/%2e?token=${link}`, {}, 200],
    ];
    for (const [method, target, headers, otherwise] of cases) {
      const r = await send(target, { method, headers });
      const where = `${method} ${target}`;
      expect(r.status, where).toBe(400);
      if (method !== 'HEAD') expect(JSON.parse(r.body.toString()), where).toEqual({ error: ERRORS.invalidPath });
      // The same request in normal form gets the answer the path check took precedence over.
      const normal = target.replace(/\/(x|nothing|nope)\/(\.\.|%2E%2E)|\/(\.|%2e)(?=[/?]|$)/gi, '');
      expect((await send(normal, { method, headers })).status, `${method} ${normal}`).toBe(otherwise);
    }

    // A key with a quota of 2: refused paths are not counted; then 2 answers, then 429.
    const small = env.gateway.createKey({ name: 'quota 2', quota: 2 });
    for (let i = 0; i < 5; i++) expect((await send('/v1/%2e/games', { headers: { 'X-API-Key': small } })).status).toBe(400);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await send('/v1/games', { headers: { 'X-API-Key': small } })).status);
    expect(statuses).toEqual([200, 200, 429]);
    // Over its quota, the key still gets the 400 first.
    expectInvalidPath(await send('/v1/games/.', { headers: { 'X-API-Key': small } }), 'over quota');
  });

  it('leaves normal paths alone: a dot inside a segment, a trailing slash, dots and %2F in the query', async () => {
    const key = { 'X-API-Key': env.key };
    const cases: Array<[string, number, string | undefined]> = [
      ['/v1/games/', 404, ERRORS.notFound],
      ['/v1/games/digimon/cards/a.b', 400, ERRORS.invalidCardId],
      ['/v1/games/digimon/cards/...', 400, ERRORS.invalidCardId],
      ['/v1/games/digimon/cards/%2e%2e%2e', 400, ERRORS.invalidCardId],
      ['/v1/games/digimon/cards/.x', 400, ERRORS.invalidCardId],
      ['/v1/decks/public?gameId=digimon&x=..%2F..%2Fx', 200, undefined],
      ['/v1/games/digimon/cards?hitsPerPage=10&x=/../..', 200, undefined],
    ];
    for (const [target, status, error] of cases) {
      const r = await send(target, { headers: key });
      expect(r.status, target).toBe(status);
      if (error) expect(JSON.parse(r.body.toString()).error, target).toBe(error);
    }
    expect((await send('/docs/swagger-ui.css')).status).toBe(200);
  });
});
