/**
 * POST /v1/decks/details over HTTP (interface.md §4.5, decisions.md "Decks"), and Chrono Core and
 * Digimon zone resolution (interface.md §2.5, decisions.md "Zones") through it and GET /v1/decks/{deckId}, including what a
 * catalog rebuild does to decks already served. Every response is checked by DeckClient
 * (helpers/decks.ts): common headers, zod schemas, /v1/openapi.json.
 */
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, type GameSlug } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { BOTH_SCOPES, TEXT_PLAIN, idGenerator, importLines, iso, startDeckEnv, startExtraGateway, type DeckLine, type DeckTestEnv } from './helpers/decks.ts';
import { waitFor } from './helpers/harness.ts';

let env: DeckTestEnv;
const newId = idGenerator(777);
const decks = new Map<string, DeckLine>();
const MISSING_CARD = 'ZZ99-999';

const auth = () => ({ 'X-API-Key': env.key });
const details = (body: unknown, headers: Record<string, string> = auth()) =>
  env.client.post('/decks/details', typeof body === 'string' ? body : JSON.stringify(body), headers);

/** Catalog card ids of a card type, in catalog order. */
function ofType(game: GameSlug, type: string): string[] {
  return env.catalogs[game]!.filter((card) => card.cardType === type).map((card) => card.id);
}
const chrono = (type: string) => ofType('chrono-core', type);

function isDigiEgg(cardId: string): boolean {
  return ofType('digimon', 'Digi-Egg').includes(cardId);
}

function makeDeck(gameId: GameSlug, cards: DeckLine['cards'], overrides: Partial<DeckLine> = {}): DeckLine {
  return {
    id: newId(),
    gameId,
    name: `${gameId} deck ${decks.size}`,
    ownerDisplayName: 'owner',
    visibility: 'public',
    createdAt: '2026-01-02T03:04:05.006Z',
    updatedAt: '2026-01-03T03:04:05.006Z',
    cards,
    ...overrides,
  };
}

async function put(...lines: DeckLine[]): Promise<void> {
  for (const line of lines) decks.set(line.id, line);
  await importLines(env.dbFile, lines);
}

/**
 * The detail the contract expects for the decks below (none is chrono-core): a recognised zone is
 * kept; digimon resolves an absent or unrecognised zone from the catalog (Digi-Egg → digi-egg,
 * else main); gundam and grand-archive: absent → main, unrecognised kept.
 */
function plainDetail(deck: DeckLine) {
  const zoneOf = (cardId: string, zone: string | null | undefined): string => {
    if (deck.gameId !== 'digimon') return zone ?? 'main';
    if (zone === 'main' || zone === 'digi-egg') return zone;
    return isDigiEgg(cardId) ? 'digi-egg' : 'main';
  };
  return { id: deck.id, gameId: deck.gameId, name: deck.name, cards: deck.cards.map((c) => ({ cardId: c.cardId, quantity: c.quantity, zoneId: zoneOf(c.cardId, c.zoneId) })) };
}

let publicDecks: DeckLine[] = [];
let privateDeck: DeckLine;

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 40, gundam: 40, 'grand-archive': 40, 'chrono-core': 60 });
  const ids = (game: string, n: number, from = 0) => env.catalogs[game]!.slice(from, from + n).map((card) => card.id);
  const [digimonEgg, ...digimonMain] = ids('digimon', 5);
  publicDecks = [
    makeDeck('digimon', [
      { cardId: digimonMain[0]!, quantity: 4, zoneId: 'main' },
      { cardId: digimonEgg!, quantity: 4, zoneId: 'digi-egg' },
      { cardId: digimonMain[1]!, quantity: 2 },
      { cardId: digimonMain[2]!, quantity: 1, zoneId: 'side-deck' },
    ]),
    makeDeck('gundam', [
      { cardId: ids('gundam', 1)[0]!, quantity: 4 },
      { cardId: ids('gundam', 1, 5)[0]!, quantity: 10, zoneId: 'resource' },
      { cardId: ids('gundam', 1, 6)[0]!, quantity: 1, zoneId: 'side-deck' },
    ], { name: '<script>alert("x")</script> & "quotes"' }),
    makeDeck('grand-archive', [
      { cardId: ids('grand-archive', 1)[0]!, quantity: 1, zoneId: 'material' },
      { cardId: ids('grand-archive', 1, 1)[0]!, quantity: 4, zoneId: 'main' },
      { cardId: ids('grand-archive', 1, 2)[0]!, quantity: 1, zoneId: 'references' },
    ]),
    makeDeck('gundam', []),
  ];
  for (let i = 0; i < 60; i++) publicDecks.push(makeDeck('digimon', [{ cardId: digimonMain[i % 4]!, quantity: 1 + (i % 4), zoneId: 'main' }], { name: `bulk ${i}` }));
  privateDeck = makeDeck('digimon', [{ cardId: digimonEgg!, quantity: 1, zoneId: 'digi-egg' }], { visibility: 'private' });
  await put(...publicDecks, privateDeck);
});

afterAll(async () => {
  if (env) expect(env.client.validated).toBeGreaterThan(20);
  await env?.close();
});

describe('POST /v1/decks/details', () => {
  it('returns each public deck with exactly id, gameId, name and cards; entries in import order', async () => {
    const wanted = publicDecks.slice(0, 4);
    const r = await details({ ids: wanted.map((d) => d.id) });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.body.data.unresolved).toEqual([]);
    expect(r.body.data.decks).toHaveLength(4);
    for (const deck of wanted) {
      const served = r.body.data.decks.find((d: { id: string }) => d.id === deck.id);
      expect(Object.keys(served).sort()).toEqual(['cards', 'gameId', 'id', 'name']);
      expect(served).toEqual(plainDetail(deck));
    }
    // The untrusted name comes back as stored, unescaped.
    expect(r.body.data.decks.find((d: { gameId: string; cards: unknown[] }) => d.gameId === 'gundam' && d.cards.length > 0).name).toBe('<script>alert("x")</script> & "quotes"');
  });

  it('0 ids → nothing; 50 ids → 50 decks; 51 ids → 400 At most 50 ids per request', async () => {
    expect((await details({ ids: [] })).body).toEqual({ data: { decks: [], unresolved: [] } });
    const fifty = publicDecks.slice(0, 50).map((d) => d.id);
    const r = await details({ ids: fifty });
    expect(r.status).toBe(200);
    expect(r.body.data.decks.map((d: { id: string }) => d.id).sort()).toEqual([...fifty].sort());
    expect(r.body.data.unresolved).toEqual([]);
    for (const ids of [publicDecks.slice(0, 51).map((d) => d.id), Array.from({ length: 51 }, () => 'x'), Array.from({ length: 300 }, () => publicDecks[0]!.id)]) {
      const tooMany = await details({ ids });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.error).toBe(ERRORS.detailsTooMany);
    }
  });

  it.each([
    ['an empty body', ''],
    ['not JSON', 'ids=1,2'],
    ['truncated JSON', '{"ids": ['],
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"ids"'],
    ['an array body', '["3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b"]'],
    ['an empty array body', '[]'],
    ['no ids', '{}'],
    ['ids misspelt', '{"IDS": []}'],
    ['ids a string', '{"ids": "3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b"}'],
    ['ids null', '{"ids": null}'],
    ['ids an object', '{"ids": {"0": "a"}}'],
    ['ids numbers', '{"ids": [1, 2]}'],
    ['ids with a null', '{"ids": ["a", null]}'],
    ['ids with an object', '{"ids": [{"id": "a"}]}'],
    ['ids nested', '{"ids": [["a"]]}'],
  ])('400 Request body must be JSON with an ids array of deck id strings: %s', async (_label, body) => {
    const r = await details(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(ERRORS.detailsBody);
  });

  it('a body over the size limit is a 400 with the documented string, not a 500 or a hang', async () => {
    const padded = JSON.stringify({ ids: [publicDecks[0]!.id], pad: 'x'.repeat(256 * 1024) });
    const r = await details(padded);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(ERRORS.detailsBody);
    // The unread rest of the body makes the connection unusable: the server says it closes it, and
    // requests right after (a keep-alive client) are answered normally.
    for (let i = 0; i < 5; i++) expect((await details({ ids: [publicDecks[0]!.id] })).status).toBe(200);
    expect(r.headers.get('connection')).toBe('close');
    const manyIds = JSON.stringify({ ids: Array.from({ length: 5000 }, () => newId()) });
    const many = await details(manyIds);
    expect(many.status).toBe(400);
    expect([ERRORS.detailsBody, ERRORS.detailsTooMany]).toContain(many.body.error);
    // The server is still fine afterwards.
    expect((await details({ ids: [publicDecks[0]!.id] })).status).toBe(200);
  });

  it('a huge body, with a Content-Length or chunked, is answered 400 before it has been read', async () => {
    const { port } = new URL(env.gateway.url);
    const head = (framing: string) =>
      `POST /v1/decks/details HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${env.key}\r\nContent-Type: application/json\r\n${framing}\r\n`;
    const size = 4 * 1024 * 1024;
    const payload = `{"ids": [], "pad": "${'x'.repeat(size)}"}`;
    const framings = [
      [head(`Content-Length: ${payload.length}\r\n`), payload],
      [head('Transfer-Encoding: chunked\r\n'), `${payload.length.toString(16)}\r\n${payload}\r\n0\r\n\r\n`],
    ] as const;
    for (const [header, body] of framings) {
      // A raw socket: the response is read as soon as it comes, whatever happens to the upload.
      const response = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(header);
          socket.write(body, () => {});
        });
        let received = '';
        const done = () => {
          socket.destroy();
          resolve(received);
        };
        socket.on('data', (chunk) => {
          received += chunk.toString();
          const end = received.indexOf('\r\n\r\n');
          const length = /content-length: (\d+)/i.exec(received)?.[1];
          if (end >= 0 && length !== undefined && received.length >= end + 4 + Number(length)) done();
        });
        socket.on('error', () => (received ? done() : reject(new Error('no response'))));
        socket.on('close', done);
        setTimeout(done, 10_000);
      });
      const [statusLine] = response.split('\r\n');
      expect(statusLine, header).toBe('HTTP/1.1 400 Bad Request');
      expect(response).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
      expect(response).toMatch(/\r\ncontent-type: application\/json\r\n/i);
      expect(response).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)).error).toBe(ERRORS.detailsBody);
    }
    expect((await details({ ids: [publicDecks[0]!.id] })).status).toBe(200);
  });

  it('answers a deck asked for several times (in any letter case) once', async () => {
    const [a, b] = publicDecks;
    const r = await details({ ids: [a!.id, a!.id, a!.id.toUpperCase(), b!.id, a!.id] });
    expect(r.status).toBe(200);
    expect(r.body.data.decks.map((d: { id: string }) => d.id).sort()).toEqual([a!.id, b!.id].sort());
    expect(r.body.data.unresolved).toEqual([]);
  });

  // Found by test/generated/openapi-requests.suite.ts: the gateway ignored other members while the
  // document closed the body (additionalProperties: false); the document now says they are ignored.
  it('ignores members other than ids, as the document says', async () => {
    const [a] = publicDecks;
    const r = await details({ ids: [a!.id], ids2: ['x'], limit: 3 });
    expect(r.status).toBe(200);
    expect(r.body.data.decks.map((d: { id: string }) => d.id)).toEqual([a!.id]);
    const doc = (await (await fetch(`${env.gateway.base}/openapi.json`)).json()) as any;
    expect(doc.components.schemas.DeckDetailsRequest.additionalProperties).not.toBe(false);
  });

  it('puts malformed, private and missing ids in unresolved, in request order, each once, without telling them apart', async () => {
    const missing = newId();
    const requested = [missing, 'nope', publicDecks[0]!.id, privateDeck.id, '', missing, `${publicDecks[1]!.id} `, privateDeck.id.toUpperCase(), '../../etc/passwd', 'x'.repeat(1000), publicDecks[2]!.id];
    const r = await details({ ids: requested });
    expect(r.status).toBe(200);
    expect(r.body.data.unresolved).toEqual([missing, 'nope', privateDeck.id, '', `${publicDecks[1]!.id} `, privateDeck.id.toUpperCase(), '../../etc/passwd', 'x'.repeat(1000)]);
    expect(r.body.data.decks.map((d: { id: string }) => d.id).sort()).toEqual([publicDecks[0]!.id, publicDecks[2]!.id].sort());
  });

  it('401 without a key or with an invalid one; 403 Insufficient scope without decks:read:public', async () => {
    const body = { ids: [publicDecks[0]!.id] };
    expect((await details(body, {})).body).toEqual({ error: ERRORS.apiKeyRequired });
    expect((await details(body, { 'X-API-Key': 'sd_live_ffffffffffffffffffffffffffffffff' })).body).toEqual({ error: ERRORS.invalidApiKey });
    for (const scopes of [[], ['decks:browse:public']]) {
      const r = await details(body, { 'X-API-Key': env.gateway.createKey({ scopes }) });
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: ERRORS.insufficientScope });
    }
  });

  it('follows 401 → 429 → 403 → 400: auth and quota before scope, scope before the body', async () => {
    const bad = '{"ids": 5}';
    expect((await details(bad, {})).status).toBe(401);
    const noScope = env.gateway.createKey({ scopes: [], quota: 1 });
    const forbidden = await details(bad, { 'X-API-Key': noScope });
    expect(forbidden.status).toBe(403);
    const limited = await details(bad, { 'X-API-Key': noScope });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: ERRORS.rateLimitExceeded });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const withScope = env.gateway.createKey({ scopes: BOTH_SCOPES, quota: 1 });
    expect((await details(bad, { 'X-API-Key': withScope })).body.error).toBe(ERRORS.detailsBody);
    expect((await details({ ids: [] }, { 'X-API-Key': withScope })).status).toBe(429);
  });

  it('405 for other methods', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const r = await env.client.request(method, '/decks/details', '{"ids": []}', auth());
      expect(r.status).toBe(405);
      expect(r.body).toEqual({ error: ERRORS.methodNotAllowed });
    }
  });
});

describe('zones', () => {
  it('gundam and grand-archive: an absent zone is main, an unrecognised one is kept as stored', async () => {
    const gundam = publicDecks[1]!;
    const r = await details({ ids: [gundam.id] });
    expect(r.body.data.decks[0].cards.map((c: { zoneId: string }) => c.zoneId)).toEqual(['main', 'resource', 'side-deck']);
    const json = await env.client.get(`/decks/${gundam.id}`);
    expect(json.body.data.cards).toEqual(r.body.data.decks[0].cards);
  });

  it('digimon: no zone or an unrecognised one → digi-egg for Digi-Egg cards, main otherwise; a recognised zone is kept even when wrong', async () => {
    const eggs = ofType('digimon', 'Digi-Egg');
    const [digimon1, digimon2, digimon3] = ofType('digimon', 'Digimon');
    const deck = makeDeck('digimon', [
      { cardId: digimon1!, quantity: 4 },
      { cardId: eggs[0]!, quantity: 4 },
      { cardId: digimon3!, quantity: 2, zoneId: 'digi-egg' }, // recognised, wrong: kept
      { cardId: eggs[1]!, quantity: 1, zoneId: 'main' }, // recognised, wrong: kept
      { cardId: eggs[2]!, quantity: 1, zoneId: 'egg-deck' }, // not a digimon zone: resolved
      { cardId: digimon2!, quantity: 2, zoneId: 'sideboard' }, // not a digimon zone: resolved
      { cardId: MISSING_CARD, quantity: 1 }, // not in the catalog: main
    ]);
    await put(deck);
    const zones = ['main', 'digi-egg', 'digi-egg', 'main', 'digi-egg', 'main', 'main'];
    const want = deck.cards.map((c, i) => ({ cardId: c.cardId, quantity: c.quantity, zoneId: zones[i] }));
    const r = await details({ ids: [deck.id] });
    expect(r.body.data.decks).toEqual([{ id: deck.id, gameId: 'digimon', name: deck.name, cards: want }]);
    expect((await env.client.get(`/decks/${deck.id}`)).body.data.cards).toEqual(want);
    const text = (await env.client.get(`/decks/${deck.id}?format=text`)).text.split('\n');
    expect(text.filter((line) => line.startsWith('//'))).toEqual(['// Digi-Egg Deck', '// Main Deck']);
    expect(text.slice(1, text.indexOf('// Main Deck')).map((line) => /\((\S+)\)$/.exec(line)![1])).toEqual([eggs[0], digimon3, eggs[2]]);
    const limitless = (await env.client.get(`/decks/${deck.id}/text?format=limitless`, auth())).text.split('\n').filter(Boolean);
    expect(limitless.map((line) => line.split(' ').at(-1))).toEqual([eggs[0], digimon3, eggs[2], digimon1, eggs[1], digimon2, MISSING_CARD]);
  });

  it('chrono-core: no zone → loadout for Core and Pilot, main otherwise; a recognised zone is kept even when wrong; an unrecognised one is resolved', async () => {
    const [pilot] = chrono('Pilot');
    const [core1, core2] = chrono('Core');
    const [upgrade1, upgrade2] = chrono('Upgrade');
    const [tactic1, tactic2] = chrono('Tactic');
    const deck = makeDeck('chrono-core', [
      { cardId: upgrade1!, quantity: 3 },
      { cardId: pilot!, quantity: 1 },
      { cardId: core1!, quantity: 1, zoneId: null },
      { cardId: tactic1!, quantity: 2, zoneId: 'sideboard' },
      { cardId: core2!, quantity: 1, zoneId: 'main' }, // recognised, wrong: kept
      { cardId: upgrade2!, quantity: 1, zoneId: 'loadout' }, // recognised, wrong: kept
      { cardId: tactic2!, quantity: 2, zoneId: 'digi-egg' }, // not a chrono-core zone: resolved
      { cardId: chrono('Core')[2]!, quantity: 1, zoneId: 'main-deck' }, // not a zone: resolved
      { cardId: MISSING_CARD, quantity: 1 }, // not in the catalog: main
    ]);
    await put(deck);
    const zones = ['main', 'loadout', 'loadout', 'sideboard', 'main', 'loadout', 'main', 'loadout', 'main'];
    const want = deck.cards.map((c, i) => ({ cardId: c.cardId, quantity: c.quantity, zoneId: zones[i] }));
    const r = await details({ ids: [deck.id] });
    expect(r.body.data.decks).toEqual([{ id: deck.id, gameId: 'chrono-core', name: deck.name, cards: want }]);
    const json = await env.client.get(`/decks/${deck.id}`);
    expect(json.body.data.cards).toEqual(want);
    // The text export groups by the resolved zones.
    const text = await env.client.get(`/decks/${deck.id}?format=text`);
    expect(text.headers.get('content-type')).toBe(TEXT_PLAIN);
    const headers = text.text.split('\n').filter((line) => line.startsWith('//'));
    expect(headers).toEqual(['// Starting Loadout', '// Main Deck', '// Sideboard']);
    expect(text.text).toContain(`1 ${MISSING_CARD} (${MISSING_CARD})\n`);
  });

  it('a rebuilt catalog changes zones of decks served for the first time; a cached deck keeps its zones until its updatedAt changes', async () => {
    const [moved] = chrono('Upgrade').slice(-1); // becomes a Core: main → loadout
    const [demoted] = chrono('Core').slice(-1); // becomes a Tactic: loadout → main
    const cards = [
      { cardId: moved!, quantity: 2 },
      { cardId: demoted!, quantity: 1 },
      { cardId: chrono('Tactic')[3]!, quantity: 3, zoneId: 'sideboard' },
    ];
    const viaJson = makeDeck('chrono-core', cards, { name: 'served by GET' });
    const viaDetails = makeDeck('chrono-core', cards, { name: 'served by details' });
    const fresh = makeDeck('chrono-core', cards, { name: 'never served' });
    await put(viaJson, viaDetails, fresh);
    const before = ['main', 'loadout', 'sideboard'];
    const after = ['loadout', 'main', 'sideboard'];
    const zonesOf = (served: { cards: Array<{ zoneId: string }> }) => served.cards.map((c) => c.zoneId);
    const getZones = async (id: string) => zonesOf((await env.client.get(`/decks/${id}`)).body.data);
    const detailZones = async (id: string) => zonesOf((await details({ ids: [id] })).body.data.decks[0]);

    expect(await getZones(viaJson.id)).toEqual(before);
    expect(await detailZones(viaDetails.id)).toEqual(before);

    // Rebuild the chrono-core snapshot with the two cards' types changed.
    const catalog = env.catalogs['chrono-core']!.map((card) =>
      card.id === moved ? { ...card, cardType: 'Core' } : card.id === demoted ? { ...card, cardType: 'Tactic' } : card,
    );
    await writeFile(join(env.catalogDir, 'chrono-core.jsonl'), catalog.map((card) => JSON.stringify(card)).join('\n') + '\n');
    await build({ catalogDir: env.catalogDir, storage: new FsDriver(env.snapshots), hitsPerPage: [100], games: ['chrono-core'] });
    await waitFor(async () => (await env.client.get(`/games/chrono-core/cards/${moved}`, auth())).body.data.cardType === 'Core', 10_000, 'the rebuilt snapshot was not picked up');

    // First served now: the new catalog decides.
    expect(await getZones(fresh.id)).toEqual(after);
    // Served before the rebuild: the zones stay, through either endpoint.
    expect(await getZones(viaJson.id)).toEqual(before);
    expect(await detailZones(viaJson.id)).toEqual(before);
    expect(await detailZones(viaDetails.id)).toEqual(before);
    expect(await getZones(viaDetails.id)).toEqual(before);
    const text = (await env.client.get(`/decks/${viaJson.id}?format=text`)).text;
    expect(text.split('\n')[0]).toBe('// Starting Loadout');
    expect(text.split('\n')[1]).toContain(`(${demoted})`);

    // A re-import that keeps updatedAt (a renamed deck) keeps the cached zones too.
    await put({ ...viaDetails, name: 'renamed, same updatedAt' });
    const renamed = (await details({ ids: [viaDetails.id] })).body.data.decks[0];
    expect(renamed.name).toBe('renamed, same updatedAt');
    expect(zonesOf(renamed)).toEqual(before);

    // updatedAt moves: resolved afresh against the current catalog.
    await put({ ...viaJson, updatedAt: iso(Date.parse(viaJson.updatedAt) + 1000) });
    expect(await getZones(viaJson.id)).toEqual(after);
    expect(await detailZones(viaJson.id)).toEqual(after);
    await put({ ...viaDetails, updatedAt: '2026-02-01T00:00:00.000Z' });
    expect(await detailZones(viaDetails.id)).toEqual(after);
  });
});

describe('GET /v1/decks/details', () => {
  it('is 405 with Allow: POST, not a deck lookup', async () => {
    const response = await fetch(`${env.gateway.base}/decks/details`, { headers: auth() });
    expect(response.status).toBe(405);
    expect(await response.json()).toEqual({ error: ERRORS.methodNotAllowed });
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('is answered like every 405, before the key and the quota: not counted, no rate-limit headers', async () => {
    const limited = await startExtraGateway(env, { addressQuota: 1 });
    try {
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${limited.url}/v1/decks/details`);
        expect(r.status).toBe(405);
        expect(r.headers.get('ratelimit')).toBeNull();
        expect(r.headers.get('ratelimit-remaining')).toBeNull();
        // Other 405s alike.
        const other = await limited.client.request('DELETE', `/decks/${publicDecks[0]!.id}`, undefined, {});
        expect(other.status).toBe(405);
        expect(other.headers.get('ratelimit')).toBeNull();
      }
      // The address's one request of the window is still there.
      const deck = await limited.client.get(`/decks/${publicDecks[0]!.id}`);
      expect(deck.status).toBe(200);
      expect(deck.headers.get('ratelimit-remaining')).toBe('0');
      expect((await limited.client.get(`/decks/${publicDecks[0]!.id}`)).status).toBe(429);
    } finally {
      await limited.close();
    }
  });

  it('any other method on /v1/decks/details is 405 with Allow: POST (GET /decks/{deckId} does not apply to it)', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const r = await env.client.request(method, '/decks/details', '{"ids": []}', auth());
      expect(r.headers.get('allow'), method).toBe('POST, OPTIONS');
    }
  });
});
