/**
 * The shipped VCL's rules hold for every spelling of what they match, through a real Varnish
 * (Debian's 7.1, the shipped deploy/varnish/snapdeck.vcl) in front of a real gateway:
 * - issue 18 item 5: a `token` parameter however spelled (`%74oken`, `toke%6E`, upper-case hex,
 *   repeated, after other parameters) is passed to the gateway, never hashed into a cache key;
 * - issue 23 item 2: a path spelled with dot segments, encoded dots or slashes, `//`, a fragment …
 *   never reaches the route the VCL guards (the figure for `npm run bench:hostile` is logged).
 * Requests go out with their target exactly as written (test/helpers/raw-target.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeckStore } from '@snapdeck/store';
import { idGenerator, importLines, startDeckEnv, withDb, type DeckLine, type DeckTestEnv } from './helpers/decks.ts';
import { requestTarget, requestsByRoute } from './helpers/raw-target.ts';
import { startVarnish, type VarnishTestServer } from './helpers/varnish-server.ts';

let env: DeckTestEnv;
let cache: VarnishTestServer;
const newId = idGenerator(2318);
const publicDeck = newId();
const privateDeck = newId();
let privateLink: string;

const deckLine = (id: string, visibility: 'public' | 'private'): DeckLine => ({
  id,
  gameId: 'digimon',
  name: `spelled ${id.slice(0, 8)}`,
  ownerDisplayName: 'tester',
  visibility,
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-02T10:00:00.000Z',
  cards: env.catalogs.digimon!.slice(0, 3).map((card) => ({ cardId: card.id, quantity: 4 })),
});

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 30 });
  await importLines(env.dbFile, [deckLine(publicDeck, 'public'), deckLine(privateDeck, 'private')]);
  privateLink = withDb(env.dbFile, (db) => new DeckStore(db).createPrivateLink(privateDeck)!);
  cache = await startVarnish({ backendPort: Number(new URL(env.gateway.url).port) });
});

afterAll(async () => {
  await cache?.stop();
  await env?.close();
});

/** Requests the gateway answered, all routes together. */
async function gatewaySeen(): Promise<number> {
  let total = 0;
  for (const count of (await requestsByRoute(env.gateway.url)).values()) total += count;
  return total;
}

// ── issue 18 item 5 ────────────────────────────────────────────────────────────────────────────

/**
 * How the gateway reads `token` (Hono's c.req.query): the query after the first `?`, split on `&`;
 * a name is what comes before the first `=`, `+` then percent-decoded once (hex of either case;
 * a broken escape is left as it is), compared with `token` exactly; the first occurrence wins.
 */
const TOKEN_NAMES = ['token', '%74oken', 'tok%65%6E', 't%6Fken', 't%6fken', 'to%6Ben', 'tok%65n', 'toke%6E', 'toke%6e', '%74%6F%6B%65%6E', '%74%6f%6b%65%6e', '%74o%6Be%6E'];
const TOKEN_QUERIES: Array<(value: string) => string> = TOKEN_NAMES.flatMap((name) => [
  (value: string) => `${name}=${value}`,
  (value: string) => `format=json&${name}=${value}`,
  (value: string) => `a=1&b=2&${name}=${value}&c=3`,
]);
// Repeated and mixed: the gateway takes the first `token` it finds, whatever the spelling.
TOKEN_QUERIES.push(
  (value) => `%74oken=${value}&token=other`,
  (value) => `toke%6E=${value}&%74oken=other&token=third`,
  (value) => `x=token&%74%6F%6B%65%6E=${value}`,
  // Long queries, the token first and last: the VCL's regex must not give up on them.
  (value) => `%74oken=${value}&pad=${'x'.repeat(6000)}`,
  (value) => `pad=${'x'.repeat(6000)}&toke%6E=${value}`,
  (value) => `%74oken=${value}&pad=${'x'.repeat(12_000)}`,
  (value) => `pad=${'%78'.repeat(4000)}&toke%6E=${value}`,
);
/** Not a token to the gateway (another name, an encoded `=`, `;` not a separator), passed all the same. */
const NEAR_MISSES: Array<(value: string) => string> = [
  (value) => `Token=${value}`,
  (value) => `TOKEN=${value}`,
  (value) => `%54oken=${value}`,
  (value) => `token%3D${value}`,
  (value) => `x=1;token=${value}`,
];

interface Spelled {
  query: string;
  /** The gateway, asked directly for the private deck with the link in this spelling, shows it. */
  readAsToken: boolean;
  /** Through the cache, a public deck asked twice with a secret in this spelling: hits and gateway requests. */
  hits: number;
  reachedGateway: number;
}

let secrets = 0;
/** One spelling, on GET /v1/decks/{id} or on the keyed /text export. */
async function trySpelling(spell: (value: string) => string, route: 'deck' | 'text'): Promise<Spelled> {
  const path = (deck: string) => (route === 'deck' ? `/v1/decks/${deck}` : `/v1/decks/${deck}/text`);
  const extra = route === 'deck' ? '' : 'format=snapdeck&';
  const headers: Record<string, string> = route === 'deck' ? {} : { 'X-API-Key': env.key };
  const direct = await requestTarget(env.gateway.url, `${path(privateDeck)}?${extra}${spell(privateLink)}`, { headers });
  // A public deck ignores the token and is answered `public`: stored if the URL is hashed.
  const secret = `pd_${'s'.repeat(20)}${++secrets}`;
  const target = `${path(publicDeck)}?${extra}${spell(secret)}`;
  const before = await gatewaySeen();
  let hits = 0;
  for (let i = 0; i < 2; i++) {
    const r = await requestTarget(cache.url, target, { headers });
    expect(r.status, target).toBe(200);
    if (r.headers['x-cache'] === 'HIT') hits++;
  }
  // gatewaySeen() is itself one request to the gateway.
  const reachedGateway = (await gatewaySeen()) - before - 1;
  return { query: spell('…').replace(/x{100,}/, (pad) => `x…(${pad.length})`), readAsToken: direct.status === 200, hits, reachedGateway };
}

describe('issue 18 item 5: a token parameter, however spelled, never enters a cache key', () => {
  it('the measurement sees hashing: a public deck without a token is a hit the second time', async () => {
    const spelled = await trySpelling((value) => `x=${value}`, 'deck');
    expect(spelled).toMatchObject({ readAsToken: false, hits: 1, reachedGateway: 1 });
  });

  for (const route of ['deck', 'text'] as const) {
    it(`GET /v1/decks/{id}${route === 'text' ? '/text' : ''}: 0 of ${TOKEN_QUERIES.length} token spellings are hashed (every request reaches the gateway, none is a hit)`, async () => {
      const rows: Spelled[] = [];
      for (const spell of TOKEN_QUERIES) rows.push(await trySpelling(spell, route));
      console.table(rows);
      // The table is relevant: the gateway reads each of these as the deck's token.
      expect(rows.filter((row) => !row.readAsToken).map((row) => row.query)).toEqual([]);
      const hashed = rows.filter((row) => row.hits > 0 || row.reachedGateway !== 2).map((row) => row.query);
      console.log(`token spellings hashed into the cache key (${route}): ${hashed.length} of ${rows.length}`);
      expect(hashed).toEqual([]);
    });
  }

  it(`near misses the gateway does not read as a token are passed too (the VCL's notion is wider): ${NEAR_MISSES.length} spellings`, async () => {
    const rows: Spelled[] = [];
    for (const spell of NEAR_MISSES) rows.push(await trySpelling(spell, 'deck'));
    expect(rows.filter((row) => row.readAsToken).map((row) => row.query)).toEqual([]);
    expect(rows.filter((row) => row.hits > 0 || row.reachedGateway !== 2).map((row) => row.query)).toEqual([]);
  });
});
