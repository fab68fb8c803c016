/**
 * The shipped VCL's rules hold for every spelling of what they match, through a real Varnish
 * (Debian's 7.1, the shipped deploy/varnish/snapdeck.vcl) in front of a real gateway:
 * - a `token` parameter however spelled (`%74oken`, `toke%6E`, upper-case hex,
 *   repeated, after other parameters) is passed to the gateway, never hashed into a cache key;
 * - a path spelled with dot segments, encoded dots or slashes, `//`, a fragment …
 *   never reaches the route the VCL guards (the figure for `npm run bench:hostile` is logged).
 * Requests go out with their target exactly as written (test/helpers/raw-target.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { DeckStore } from '@snapdeck/store';
import { idGenerator, importLines, startDeckEnv, withDb, type DeckLine, type DeckTestEnv } from './helpers/decks.ts';
import { guardedPaths, spellingsOf, type GuardedPath } from './helpers/path-spellings.ts';
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
  // Quiet probes: every request the gateway counts is one the cache forwarded.
  cache = await startVarnish({ backendPort: Number(new URL(env.gateway.url).port), quietProbes: true });
});

afterAll(async () => {
  await cache?.stop();
  await env?.close();
});

/** Requests the gateway answered, all routes together. */
async function gatewaySeen(): Promise<number> {
  let total = 0;
  // Varnish's health probes (GET /readyz every few seconds) are not the requests measured: under
  // load one landed between the two requests of a trial and made it look hashed.
  for (const [route, count] of await requestsByRoute(env.gateway.url)) if (route !== '/readyz') total += count;
  return total;
}

// ── token parameters ────────────────────────────────────────────────────────────────────────────

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

describe('a token parameter, however spelled, never enters a cache key', () => {
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

// ── path spellings ──────────────────────────────────────────────────────────────────────────────

const PLACEHOLDER_PATHS = guardedPaths({ deck: publicDeck, card: 'CARD', token: 'TOKEN' });
const SPELLED_COUNT = PLACEHOLDER_PATHS.reduce((n, p) => n + spellingsOf(p.path).length, 0);

interface PathRow {
  path: string;
  spelling: string;
  status: number;
  error: string;
  /** Answered by the guarded path's route (through the gateway, or a hit stored from it). */
  reached: boolean;
  /** The gateway answered it at all (on any route, or none). */
  forwarded: boolean;
}

/** One request through the cache, and what the gateway's counters say happened to it. */
async function throughCache(guarded: GuardedPath, target: string, previous: Map<string, number>): Promise<{ status: number; error: string; reached: boolean; forwarded: boolean; counts: Map<string, number> }> {
  const headers: Record<string, string> = guarded.key ? { 'X-API-Key': env.key } : {};
  const r = await requestTarget(cache.url, target, { method: guarded.method, headers });
  const counts = await requestsByRoute(env.gateway.url);
  const delta = (route: string) => (counts.get(route) ?? 0) - (previous.get(route) ?? 0) - (route === '/metrics' ? 1 : 0);
  let total = 0;
  for (const route of counts.keys()) total += delta(route);
  let error = '';
  try {
    error = JSON.parse(r.body.toString()).error ?? '';
  } catch {
    // not JSON (a page, the metrics text)
  }
  // Served by the guarded route: the gateway answered it there (not with its own path check's
  // 400), or the cache served what it had stored from there.
  const reached = (delta(guarded.route) > 0 && error !== ERRORS.invalidPath) || r.headers['x-cache'] === 'HIT';
  return { status: r.status, error, reached, forwarded: total > 0, counts };
}

describe('every rule of the VCL holds for every spelling of a path', () => {
  const guarded = () => guardedPaths({ deck: publicDeck, card: env.catalogs.digimon![0]!.id, token: privateLink });

  it('the measurement sees a reach: each path spelled normally reaches its route, but /metrics, refused by the cache', async () => {
    let counts = await requestsByRoute(env.gateway.url);
    for (const p of guarded()) {
      const seen = await throughCache(p, p.path + p.query, counts);
      counts = seen.counts;
      expect(seen.reached, p.path).toBe(p.path !== '/metrics');
      if (p.path === '/metrics') expect([seen.status, seen.error]).toEqual([404, ERRORS.notFound]);
    }
  });

  it('a target in absolute form is held to the same rules: Varnish reduces http://host/path to the path; others are refused', async () => {
    let counts = await requestsByRoute(env.gateway.url);
    const metrics = guarded().find((p) => p.path === '/metrics')!;
    for (const [target, status, error] of [
      ['http://127.0.0.1/metrics', 404, ERRORS.notFound],
      ['HTTP://127.0.0.1/metrics', 404, ERRORS.notFound],
      ['https://127.0.0.1/metrics', 400, ERRORS.invalidPath],
      ['http://127.0.0.1', 400, ERRORS.invalidPath],
      ['*', 400, ERRORS.invalidPath],
    ] as const) {
      const seen = await throughCache(metrics, target, counts);
      counts = seen.counts;
      expect({ target, status: seen.status, error: seen.error, forwarded: seen.forwarded }).toEqual({ target, status, error, forwarded: false });
    }
  });

  it(`0 of ${SPELLED_COUNT} spellings of ${PLACEHOLDER_PATHS.length} VCL-guarded paths reach their route through Varnish; each is refused by the cache: 400 "Invalid request path"`, async () => {
    const rows: PathRow[] = [];
    let counts = await requestsByRoute(env.gateway.url);
    for (const p of guarded()) {
      for (const spelling of spellingsOf(p.path)) {
        const seen = await throughCache(p, spelling.target + p.query, counts);
        counts = seen.counts;
        rows.push({ path: p.path, spelling: spelling.name, status: seen.status, error: seen.error, reached: seen.reached, forwarded: seen.forwarded });
      }
    }
    const reached = rows.filter((row) => row.reached);
    const bySpelling = new Map<string, { spelled: number; reached: number; refusedByCache: number }>();
    for (const row of rows) {
      const entry = bySpelling.get(row.spelling) ?? { spelled: 0, reached: 0, refusedByCache: 0 };
      entry.spelled++;
      if (row.reached) entry.reached++;
      if (!row.forwarded && row.status === 400 && row.error === ERRORS.invalidPath) entry.refusedByCache++;
      bySpelling.set(row.spelling, entry);
    }
    console.table(Object.fromEntries(bySpelling));
    console.log(`path spellings that reach a VCL-protected path through Varnish: ${reached.length} of ${rows.length}`);
    expect(rows.length).toBe(SPELLED_COUNT);
    expect(reached.map((row) => `${row.spelling}: ${row.path} → ${row.status}`)).toEqual([]);
    expect(rows.filter((row) => row.forwarded || row.status !== 400 || row.error !== ERRORS.invalidPath)).toEqual([]);
  });
});
