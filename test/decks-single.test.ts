/**
 * GET /v1/decks/{deckId} (format json | text | ga-tts, tokens, the per-address limit) and
 * GET /v1/decks/{deckId}/text (format snapdeck | limitless) over HTTP: interface.md §4.6–4.7,
 * decisions.md "Decks", "Errors and precedence". Every response is checked by DeckClient
 * (helpers/decks.ts): common headers, zod schemas, /v1/openapi.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_MODELS, ERRORS, SEARCH_PATHS, findGame, type GameSlug } from '@snapdeck/contract';
import { DeckStore } from '@snapdeck/store';
import { runCli } from './helpers/cli-gateway.ts';
import { TEXT_PLAIN, idGenerator, importLines, startDeckEnv, startExtraGateway, withDb, type DeckLine, type DeckTestEnv } from './helpers/decks.ts';

let env: DeckTestEnv;
const newId = idGenerator(31337);
const decks: Record<string, DeckLine> = {};

const ABBREVIATION: Record<GameSlug, string> = { digimon: 'DCG', gundam: 'GUN', 'grand-archive': 'GA', 'chrono-core': 'CC' };
const LABELS: Record<string, string> = {
  'digi-egg': 'Digi-Egg Deck',
  main: 'Main Deck',
  resource: 'Resource Deck',
  loadout: 'Starting Loadout',
  material: 'Material Deck',
  sideboard: 'Sideboard',
};
const label = (zone: string) => LABELS[zone] ?? zone.split('-').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('-');

function catalogCard(game: GameSlug, id: string): Record<string, unknown> | undefined {
  return env.catalogs[game]!.find((card) => card.id === id);
}

/** decisions.md: the catalog name, or the id for a card the catalog does not have. */
function nameOf(game: GameSlug, id: string): string {
  const card = catalogCard(game, id);
  return card ? CARD_MODELS[game].nameOf(card as never) : id;
}

/** decisions.md "Zones", written out independently of the gateway's zones.ts. */
const RECOGNIZED: Record<GameSlug, string[]> = {
  digimon: ['main', 'digi-egg'],
  gundam: ['main', 'resource'],
  'grand-archive': ['main', 'material', 'references', 'sideboard'],
  'chrono-core': ['loadout', 'main', 'sideboard'],
};
const ZONE_OF_CARD_TYPE: Partial<Record<GameSlug, Record<string, string>>> = {
  digimon: { 'Digi-Egg': 'digi-egg' },
  'chrono-core': { Core: 'loadout', Pilot: 'loadout' },
};

/**
 * Served entries: a recognised stored zone is kept; in digimon and chrono-core an absent or
 * unrecognised one comes from the catalog card's type (main when the card is missing); elsewhere
 * absent → main and unrecognised is kept.
 */
function served(deck: DeckLine) {
  const game = deck.gameId;
  const zoneOf = (cardId: string, zone: string | null | undefined): string => {
    if (zone != null && RECOGNIZED[game].includes(zone)) return zone;
    const byType = ZONE_OF_CARD_TYPE[game];
    if (!byType) return zone ?? 'main';
    return byType[String(catalogCard(game, cardId)?.cardType)] ?? 'main';
  };
  return deck.cards.map((c) => ({ cardId: c.cardId, quantity: c.quantity, zoneId: zoneOf(c.cardId, c.zoneId) }));
}

/** Zone groups in export order (decisions.md): leading zones, then others by first appearance. */
function groups(deck: DeckLine): Array<[string, ReturnType<typeof served>]> {
  const leading = deck.gameId === 'grand-archive' ? ['main', 'material', 'sideboard'] : ['digi-egg', 'resource', 'loadout', 'main', 'sideboard'];
  const map = new Map<string, ReturnType<typeof served>>(leading.map((zone) => [zone, []]));
  for (const card of served(deck)) {
    if (!map.has(card.zoneId)) map.set(card.zoneId, []);
    map.get(card.zoneId)!.push(card);
  }
  return [...map].filter(([, cards]) => cards.length > 0);
}

/** format=text as decisions.md describes it, written independently of the gateway's text.ts. */
function expectedText(deck: DeckLine): string {
  const game = deck.gameId;
  if (game === 'grand-archive') {
    // The Omnideck layout: non-empty sections in export order, references left out.
    const sections = groups(deck)
      .filter(([zone]) => zone !== 'references')
      .map(([zone, cards]) => [`# ${label(zone)}`, ...cards.map((c) => `${c.quantity} ${nameOf(game, c.cardId)}`)].join('\n'));
    return sections.length ? `${sections.join('\n\n')}\n` : '';
  }
  const all = groups(deck);
  const rows: string[] = [];
  for (const [zone, cards] of all) {
    if (all.length > 1) rows.push(`// ${label(zone)}`);
    for (const c of cards) rows.push(`${c.quantity} ${nameOf(game, c.cardId)} (${c.cardId})`);
  }
  return rows.length ? `${rows.join('\n')}\n` : '';
}

function expectedExport(deck: DeckLine, format: 'snapdeck' | 'limitless'): string {
  const game = deck.gameId;
  const rows = groups(deck).flatMap(([, cards]) =>
    cards.map((c) => (format === 'snapdeck' ? `${c.quantity} ${nameOf(game, c.cardId)} (${ABBREVIATION[game]}) (${c.cardId})` : `${c.quantity} ${nameOf(game, c.cardId)} ${c.cardId}`)),
  );
  return rows.length ? `${rows.join('\n')}\n` : '';
}

const key = () => ({ 'X-API-Key': env.key });
const get = (path: string, headers: Record<string, string> = {}) => env.client.get(path, headers);

function deck(name: string, gameId: GameSlug, cards: DeckLine['cards'], overrides: Partial<DeckLine> = {}): DeckLine {
  const line: DeckLine = {
    id: newId(),
    gameId,
    name,
    ownerDisplayName: `owner of ${name}`,
    visibility: 'public',
    createdAt: '2026-03-01T10:00:00Z',
    updatedAt: '2026-03-02T11:30:15.250+01:00',
    copyCount: 3,
    viewCount: 30,
    likeCount: 2,
    cards,
    ...overrides,
  };
  decks[name] = line;
  return line;
}

beforeAll(async () => {
  env = await startDeckEnv({ digimon: 40, gundam: 40, 'grand-archive': 40, 'chrono-core': 60 });
  const ids = (game: GameSlug) => env.catalogs[game]!.map((card) => card.id);
  const dg = ids('digimon');
  const gd = ids('gundam');
  const ga = ids('grand-archive');
  const cc = env.catalogs['chrono-core']!;
  const ccOf = (type: string) => cc.filter((card) => card.cardType === type).map((card) => card.id);
  const dgOf = (type: string) => env.catalogs.digimon!.filter((card) => card.cardType === type).map((card) => card.id);
  const lines = [
    deck('digimon', 'digimon', [
      { cardId: dg[10]!, quantity: 4, zoneId: 'main' },
      { cardId: dg[0]!, quantity: 4, zoneId: 'digi-egg' },
      { cardId: dg[11]!, quantity: 2 },
      { cardId: dg[12]!, quantity: 1, zoneId: 'sideboard' },
      { cardId: 'BT99-999', quantity: 1, zoneId: 'main' },
      { cardId: dg[1]!, quantity: 1, zoneId: 'digi-egg' },
      { cardId: dg[13]!, quantity: 2, zoneId: 'side-deck' },
      { cardId: dgOf('Digi-Egg')[2]!, quantity: 2 }, // an egg stored without a zone
      { cardId: dgOf('Digi-Egg')[3]!, quantity: 1, zoneId: 'eggs' }, // an egg in an unrecognised zone
      { cardId: dgOf('Digi-Egg')[4]!, quantity: 1, zoneId: 'main' }, // recognised, wrong: kept
    ]),
    deck('gundam other zones', 'gundam', [
      { cardId: gd[7]!, quantity: 4 },
      { cardId: gd[8]!, quantity: 1, zoneId: 'side-deck' },
      { cardId: gd[21]!, quantity: 5, zoneId: 'resource' },
    ]),
    deck('gundam', 'gundam', [
      { cardId: gd[3]!, quantity: 4 },
      { cardId: gd[20]!, quantity: 10, zoneId: 'resource' },
      { cardId: gd[4]!, quantity: 3, zoneId: 'main' },
    ]),
    deck('gundam one zone', 'gundam', [
      { cardId: gd[5]!, quantity: 4 },
      { cardId: gd[6]!, quantity: 2 },
    ]),
    deck('grand-archive', 'grand-archive', [
      { cardId: ga[0]!, quantity: 1, zoneId: 'material' },
      { cardId: ga[5]!, quantity: 4, zoneId: 'main' },
      { cardId: ga[9]!, quantity: 1, zoneId: 'references' },
      { cardId: ga[6]!, quantity: 2, zoneId: 'sideboard' },
      { cardId: ga[7]!, quantity: 3 },
      { cardId: ga[1]!, quantity: 1, zoneId: 'material' },
      { cardId: 'no-such-card', quantity: 1, zoneId: 'main' },
    ]),
    deck('grand-archive no sideboard', 'grand-archive', [
      { cardId: ga[2]!, quantity: 1, zoneId: 'material' },
      { cardId: ga[8]!, quantity: 4, zoneId: 'main' },
    ]),
    deck('chrono-core', 'chrono-core', [
      { cardId: ccOf('Upgrade')[0]!, quantity: 3, zoneId: 'main' },
      { cardId: ccOf('Pilot')[0]!, quantity: 1, zoneId: 'loadout' },
      { cardId: ccOf('Tactic')[0]!, quantity: 2, zoneId: 'sideboard' },
      { cardId: ccOf('Core')[0]!, quantity: 1, zoneId: 'loadout' },
    ]),
    deck('empty', 'gundam', []),
    deck('private', 'digimon', [{ cardId: dg[14]!, quantity: 4, zoneId: 'main' }], { visibility: 'private', name: 'private' }),
    deck('private 2', 'digimon', [{ cardId: dg[15]!, quantity: 4, zoneId: 'main' }], { visibility: 'private' }),
    deck('private ga', 'grand-archive', [{ cardId: ga[3]!, quantity: 1, zoneId: 'material' }], { visibility: 'private' }),
  ];
  await importLines(env.dbFile, lines);
});

afterAll(async () => {
  if (env) expect(env.client.validated).toBeGreaterThan(30);
  await env?.close();
});

const PUBLIC = ['digimon', 'gundam', 'gundam one zone', 'gundam other zones', 'grand-archive', 'grand-archive no sideboard', 'chrono-core', 'empty'];

describe('GET /v1/decks/{deckId}', () => {
  it.each(PUBLIC)('format=json (the default), no key needed: the full deck of %s', async (name) => {
    const d = decks[name]!;
    const r = await get(`/decks/${d.id}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=30');
    expect(r.body).toEqual({
      data: {
        id: d.id,
        name: d.name,
        gameId: d.gameId,
        ownerDisplayName: d.ownerDisplayName,
        cards: served(d),
        createdAt: '2026-03-01T10:00:00.000Z',
        updatedAt: '2026-03-02T10:30:15.250Z',
      },
    });
    expect((await get(`/decks/${d.id}?format=json`)).text).toBe(r.text);
    // The Accept header does not choose the representation; a key changes nothing.
    expect((await get(`/decks/${d.id}`, { Accept: 'text/plain', ...key() })).text).toBe(r.text);
    // Ids are matched in any letter case.
    expect((await get(`/decks/${d.id.toUpperCase()}`)).body.data.id).toBe(d.id);
  });

  it.each(PUBLIC)('format=text of %s: text/plain, no envelope, the layout of decisions.md', async (name) => {
    const d = decks[name]!;
    const r = await get(`/decks/${d.id}?format=text`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(TEXT_PLAIN);
    expect(r.text).toBe(expectedText(d));
    expect(r.text).not.toContain('"data"');
  });

  it('format=text: the exact lines of a multi-zone and a single-zone deck, and Grand Archive sections', async () => {
    const dg = decks.digimon!;
    const text = (await get(`/decks/${dg.id}?format=text`)).text;
    const lines = text.split('\n');
    // digimon resolves absent and unrecognised zones from the catalog: eggs under Digi-Egg Deck.
    expect(lines.filter((line) => line.startsWith('//'))).toEqual(['// Digi-Egg Deck', '// Main Deck']);
    const eggs = lines.slice(1, lines.indexOf('// Main Deck'));
    expect(eggs.map((line) => /\((\S+)\)$/.exec(line)![1])).toEqual([dg.cards[1]!.cardId, dg.cards[5]!.cardId, dg.cards[7]!.cardId, dg.cards[8]!.cardId]);
    expect(lines.slice(lines.indexOf('// Main Deck'))).toContain(`1 ${nameOf('digimon', dg.cards[9]!.cardId)} (${dg.cards[9]!.cardId})`);
    // Gundam keeps an unrecognised zone, after the leading ones.
    const gundamText = (await get(`/decks/${decks['gundam other zones']!.id}?format=text`)).text;
    expect(gundamText.split('\n').filter((line) => line.startsWith('//'))).toEqual(['// Resource Deck', '// Main Deck', '// Side-Deck']);
    expect(text).toContain('\n1 BT99-999 (BT99-999)\n'); // not in the catalog: its id as its name
    expect((await get(`/decks/${decks['gundam one zone']!.id}?format=text`)).text.startsWith('//')).toBe(false);
    const ga = (await get(`/decks/${decks['grand-archive']!.id}?format=text`)).text;
    expect(ga.split('\n').filter((line) => line.startsWith('#'))).toEqual(['# Main Deck', '# Material Deck', '# Sideboard']);
    expect(ga).not.toContain(nameOf('grand-archive', decks['grand-archive']!.cards[2]!.cardId)); // references are not listed
    expect((await get(`/decks/${decks['grand-archive no sideboard']!.id}?format=text`)).text).not.toContain('# Sideboard');
    expect((await get(`/decks/${decks.empty!.id}?format=text`)).text).toBe('');
  });

  it('format=ga-tts: zones main, material, references, sideboard with names, images and the full catalog card', async () => {
    const d = decks['grand-archive']!;
    const r = await get(`/decks/${d.id}?format=ga-tts`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    const element = (c: { cardId: string; quantity: number }) => {
      const card = catalogCard('grand-archive', c.cardId);
      return {
        cardId: c.cardId,
        quantity: c.quantity,
        name: nameOf('grand-archive', c.cardId),
        imageUrl: card ? CARD_MODELS['grand-archive'].imageUrlOf(card as never) : null,
        card: card ?? null,
      };
    };
    const zone = (z: string) => served(d).filter((c) => c.zoneId === z).map(element);
    expect(r.body).toEqual({ data: { id: d.id, name: d.name, zones: { main: zone('main'), material: zone('material'), references: zone('references'), sideboard: zone('sideboard') } } });
    expect(Object.keys(r.body.data.zones)).toEqual(['main', 'material', 'references', 'sideboard']);
    expect(r.body.data.zones.main.at(-1)).toEqual({ cardId: 'no-such-card', quantity: 1, name: 'no-such-card', imageUrl: null, card: null });
    for (const z of ['main', 'material', 'references', 'sideboard']) {
      for (const e of r.body.data.zones[z]) if (e.card) expect(e.imageUrl).toMatch(/^https:\/\//);
    }
    // Every zone is present even when empty.
    const small = await get(`/decks/${decks['grand-archive no sideboard']!.id}?format=ga-tts`);
    expect(small.body.data.zones.sideboard).toEqual([]);
    expect(small.body.data.zones.references).toEqual([]);
  });

  it('format=ga-tts is 400 for a deck of another game', async () => {
    for (const name of ['digimon', 'gundam', 'chrono-core', 'empty']) {
      const r = await get(`/decks/${decks[name]!.id}?format=ga-tts`);
      expect([name, r.status, r.body.error]).toEqual([name, 400, ERRORS.gaTtsOnly]);
    }
  });

  it('400 Unknown format for anything but json, text and ga-tts — before looking the deck up', async () => {
    for (const format of ['xml', 'JSON', 'Text', '', 'limitless', 'snapdeck', 'tts']) {
      for (const id of [decks.digimon!.id, newId(), 'not-a-uuid']) {
        const r = await get(`/decks/${id}?format=${encodeURIComponent(format)}`);
        expect([format, r.status, r.body.error]).toEqual([format, 400, ERRORS.deckFormatUnknown]);
      }
    }
  });

  it('404 Deck not found or not public: malformed, missing, private without a valid token', async () => {
    const missing = newId();
    for (const path of [
      `/decks/${missing}`,
      `/decks/${missing}?format=text`,
      `/decks/${missing}?format=ga-tts`,
      '/decks/not-a-uuid',
      '/decks/3f2b8c1e-5d4a-1e6f-9a7b-1c2d3e4f5a6b', // version 1
      `/decks/${decks.digimon!.id}x`,
      `/decks/${'a'.repeat(300)}`,
      `/decks/${decks.private!.id}`,
      `/decks/${decks.private!.id}?format=text`,
      `/decks/${decks['private ga']!.id}?format=ga-tts`, // 404 before the ga-tts check: nothing is revealed
      `/decks/${decks.private!.id}?format=ga-tts`,
      `/decks/${decks.private!.id}?token=`,
      `/decks/${decks.private!.id}?token=garbage`,
      `/decks/${decks.private!.id}?token=st_${'0'.repeat(32)}`,
      `/decks/${decks.private!.id}?token=pd_${'0'.repeat(32)}`,
    ]) {
      const r = await get(path);
      expect([path, r.status, r.body.error]).toEqual([path, 404, ERRORS.deckNotFound]);
    }
  });

  it('405 for other methods', async () => {
    const r = await env.client.request('DELETE', `/decks/${decks.digimon!.id}`, undefined, {});
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ error: ERRORS.methodNotAllowed });
  });

  it('answers 304 to If-None-Match for json, text and ga-tts; each format has its own ETag', async () => {
    const tags = new Set<string>();
    for (const path of [`/decks/${decks.digimon!.id}`, `/decks/${decks.digimon!.id}?format=text`, `/decks/${decks['grand-archive']!.id}?format=ga-tts`, `/decks/${decks['grand-archive']!.id}`]) {
      const first = await get(path);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[^"]+"$/);
      tags.add(etag);
      const second = await get(path, { 'If-None-Match': etag });
      expect(second.status).toBe(304);
      expect(second.headers.get('etag')).toBe(etag);
      expect((await get(path, { 'If-None-Match': '"something-else"' })).status).toBe(200);
    }
    expect(tags.size).toBe(4);
  });
});

describe('tokens', () => {
  const issue = <T>(fn: (store: DeckStore) => T, now?: () => number): T => withDb(env.dbFile, (db) => fn(new DeckStore(db, now ? { now } : {})));

  it('a public deck ignores the token, whatever it is', async () => {
    const other = issue((s) => s.createShareToken(decks.private!.id)!);
    for (const token of ['garbage', other, `pd_${'f'.repeat(32)}`, '']) {
      const r = await get(`/decks/${decks.gundam!.id}?token=${encodeURIComponent(token)}`);
      expect(r.status).toBe(200);
      expect(r.body.data.id).toBe(decks.gundam!.id);
    }
  });

  it('a private deck opens with its share token or its pd_ link, in every format, never stored by caches', async () => {
    const share = issue((s) => s.createShareToken(decks.private!.id)!);
    const link = issue((s) => s.createPrivateLink(decks.private!.id)!);
    expect(share).toMatch(/^st_/);
    expect(link).toMatch(/^pd_/);
    for (const token of [share, link]) {
      const json = await get(`/decks/${decks.private!.id}?token=${token}`);
      expect(json.status).toBe(200);
      expect(json.body.data).toMatchObject({ id: decks.private!.id, name: 'private', cards: served(decks.private!) });
      expect(json.headers.get('cache-control')).toBe('private, no-store');
      const text = await get(`/decks/${decks.private!.id}?format=text&token=${token}`);
      expect(text.text).toBe(expectedText(decks.private!));
      expect(text.headers.get('cache-control')).toBe('private, no-store');
      const exported = await get(`/decks/${decks.private!.id}/text?format=snapdeck&token=${token}`, key());
      expect(exported.text).toBe(expectedExport(decks.private!, 'snapdeck'));
      expect(exported.headers.get('cache-control')).toBe('private, no-store');
    }
    const gaShare = issue((s) => s.createShareToken(decks['private ga']!.id)!);
    expect((await get(`/decks/${decks['private ga']!.id}?format=ga-tts&token=${gaShare}`)).status).toBe(200);
    // A private non-GA deck with its token reaches the ga-tts check.
    expect((await get(`/decks/${decks.private!.id}?format=ga-tts&token=${share}`)).body).toEqual({ error: ERRORS.gaTtsOnly });
  });

  it('a token of another deck is 404', async () => {
    const share = issue((s) => s.createShareToken(decks['private 2']!.id)!);
    const link = issue((s) => s.createPrivateLink(decks['private 2']!.id)!);
    for (const token of [share, link]) {
      expect((await get(`/decks/${decks.private!.id}?token=${token}`)).status).toBe(404);
      expect((await get(`/decks/${decks.private!.id}/text?format=limitless&token=${token}`, key())).status).toBe(404);
      expect((await get(`/decks/${decks['private 2']!.id}?token=${token}`)).status).toBe(200);
    }
  });

  it('an expired share token is 404; one issued 24 hours minus a minute ago still works; a pd_ link never expires', async () => {
    const day = 86_400_000;
    const expired = issue((s) => s.createShareToken(decks.private!.id), () => Date.now() - day - 5_000)!;
    const young = issue((s) => s.createShareToken(decks.private!.id), () => Date.now() - day + 60_000)!;
    const oldLink = issue((s) => s.createPrivateLink(decks.private!.id), () => Date.now() - 10 * 365 * day)!;
    expect((await get(`/decks/${decks.private!.id}?token=${expired}`)).body).toEqual({ error: ERRORS.deckNotFound });
    expect((await get(`/decks/${decks.private!.id}/text?format=snapdeck&token=${expired}`, key())).status).toBe(404);
    expect((await get(`/decks/${decks.private!.id}?token=${young}`)).status).toBe(200);
    expect((await get(`/decks/${decks.private!.id}?token=${oldLink}`)).status).toBe(200);
  });

  it('a share token issued with --ttl 3 by the CLI works, then expires', async () => {
    const cli = await runCli(['tokens', 'share', decks['private 2']!.id, '--ttl', '3', '--db', env.dbFile]);
    const issuedBy = Date.now(); // the token was issued before the CLI exited
    expect(cli.code, cli.stderr).toBe(0);
    const token = cli.stdout.trim();
    expect(token).toMatch(/^st_[0-9a-f]{32}$/);
    expect((await get(`/decks/${decks['private 2']!.id}?token=${token}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, issuedBy + 3_100 - Date.now()));
    expect((await get(`/decks/${decks['private 2']!.id}?token=${token}`)).status).toBe(404);
  });

  it('a deleted deck is 404 even with a link; a deck made public needs no token', async () => {
    const victim = deck('doomed', 'digimon', [{ cardId: env.catalogs.digimon![2]!.id, quantity: 1 }], { visibility: 'private' });
    await importLines(env.dbFile, [victim]);
    const link = issue((s) => s.createPrivateLink(victim.id)!);
    expect((await get(`/decks/${victim.id}?token=${link}`)).status).toBe(200);
    expect((await get(`/decks/${victim.id}`)).status).toBe(404);
    await importLines(env.dbFile, [{ ...victim, visibility: 'public' }]);
    expect((await get(`/decks/${victim.id}`)).status).toBe(200);
    await importLines(env.dbFile, [{ ...victim, visibility: 'private' }]);
    expect((await get(`/decks/${victim.id}`)).status).toBe(404);
    expect((await get(`/decks/${victim.id}?token=${link}`)).status).toBe(200);
    await importLines(env.dbFile, [{ id: victim.id, deleted: true }]);
    expect((await get(`/decks/${victim.id}?token=${link}`)).body).toEqual({ error: ERRORS.deckNotFound });
    expect((await get(`/decks/${victim.id}/text?format=snapdeck&token=${link}`, key())).status).toBe(404);
  });
});

describe('GET /v1/decks/{deckId}/text', () => {
  it.each(PUBLIC)('format=snapdeck and format=limitless of %s', async (name) => {
    const d = decks[name]!;
    for (const format of ['snapdeck', 'limitless'] as const) {
      const r = await get(`/decks/${d.id}/text?format=${format}`, key());
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe(TEXT_PLAIN);
      expect(r.headers.get('vary')).toContain('X-API-Key');
      if (d.gameId === 'grand-archive' && format === 'limitless') {
        // One line per entry; main before material before sideboard (references: not fixed).
        const lines = r.text.split('\n').filter(Boolean);
        expect([...lines].sort()).toEqual(served(d).map((c) => `${c.quantity} ${nameOf('grand-archive', c.cardId)} ${c.cardId}`).sort());
        const zoneOfLine = (line: string) => served(d).find((c) => line.endsWith(` ${c.cardId}`))!.zoneId;
        const order = lines.map(zoneOfLine).filter((z) => z !== 'references');
        expect(order).toEqual([...order].sort((a, b) => ['main', 'material', 'sideboard'].indexOf(a) - ['main', 'material', 'sideboard'].indexOf(b)));
      } else if (d.gameId === 'grand-archive') {
        const lines = r.text.split('\n').filter(Boolean);
        expect([...lines].sort()).toEqual(served(d).map((c) => `${c.quantity} ${nameOf('grand-archive', c.cardId)} (GA) (${c.cardId})`).sort());
      } else {
        expect(r.text).toBe(expectedExport(d, format));
      }
    }
  });

  it('snapdeck lines name the game by its abbreviation; no headers', async () => {
    for (const [name, abbreviation] of [['digimon', 'DCG'], ['gundam', 'GUN'], ['grand-archive', 'GA'], ['chrono-core', 'CC']] as const) {
      const text = (await get(`/decks/${decks[name]!.id}/text?format=snapdeck`, key())).text;
      for (const line of text.split('\n').filter(Boolean)) expect(line).toMatch(new RegExp(`^\\d+ .+ \\(${abbreviation}\\) \\([A-Za-z0-9_-]+\\)$`));
      expect(text).not.toMatch(/^(\/\/|#)/m);
    }
  });

  it('needs a key but no scope: 401 without or with an invalid key', async () => {
    const id = decks.digimon!.id;
    expect((await get(`/decks/${id}/text?format=snapdeck`)).body).toEqual({ error: ERRORS.apiKeyRequired });
    expect((await get(`/decks/${id}/text?format=snapdeck`, { 'X-API-Key': 'sd_live_0123' })).body).toEqual({ error: ERRORS.invalidApiKey });
    const noScopes = env.gateway.createKey({ scopes: [] });
    expect((await get(`/decks/${id}/text?format=snapdeck`, { 'X-API-Key': noScopes })).status).toBe(200);
  });

  it('400 format is required; 400 Unknown format. Supported: limitless, snapdeck', async () => {
    const id = decks.digimon!.id;
    for (const query of ['', '?format=', '?token=x', '?Format=snapdeck']) {
      const r = await get(`/decks/${id}/text${query}`, key());
      expect([query, r.status, r.body.error]).toEqual([query, 400, ERRORS.textFormatRequired]);
    }
    for (const format of ['text', 'json', 'ga-tts', 'LIMITLESS', 'Snapdeck', 'toString', '__proto__', 'constructor']) {
      const r = await get(`/decks/${id}/text?format=${format}`, key());
      expect([format, r.status, r.body.error]).toEqual([format, 400, ERRORS.textFormatUnknown]);
    }
  });

  it('404 Deck not found or not public', async () => {
    for (const id of [newId(), 'nope', decks.private!.id]) {
      const r = await get(`/decks/${id}/text?format=limitless`, key());
      expect([id, r.status, r.body.error]).toEqual([id, 404, ERRORS.deckNotFound]);
    }
    expect((await get(`/decks/${decks.private!.id}/text?format=limitless&token=garbage`, key())).status).toBe(404);
  });

  it('follows 401 → 429 → 400 required → 400 other → 404', async () => {
    const missing = newId();
    expect((await get(`/decks/${missing}/text`)).body).toEqual({ error: ERRORS.apiKeyRequired });
    const once = env.gateway.createKey({ quota: 1 });
    expect((await get(`/decks/${missing}/text`, { 'X-API-Key': once })).body).toEqual({ error: ERRORS.textFormatRequired });
    const limited = await get(`/decks/${missing}/text`, { 'X-API-Key': once });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: ERRORS.rateLimitExceeded });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await get(`/decks/${missing}/text?format=xml`, key())).body).toEqual({ error: ERRORS.textFormatUnknown });
    expect((await get(`/decks/${missing}/text?format=snapdeck`, key())).body).toEqual({ error: ERRORS.deckNotFound });
  });

  it('answers 304 to If-None-Match', async () => {
    const path = `/decks/${decks.gundam!.id}/text?format=limitless`;
    const first = await get(path, key());
    const etag = first.headers.get('etag')!;
    const second = await get(path, { ...key(), 'If-None-Match': etag });
    expect(second.status).toBe(304);
    expect(second.headers.get('etag')).toBe(etag);
    const other = await get(`/decks/${decks.gundam!.id}/text?format=snapdeck`, key());
    expect(other.headers.get('etag')).not.toBe(etag);
  });
});

describe('operator errors', () => {
  it('500 Internal server error, as JSON with the common headers, when the game has no published catalog', async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const empty = await mkdtemp(join(tmpdir(), 'snapdeck-no-snapshots-'));
    const gateway = await startExtraGateway({ ...env, snapshots: empty }, {});
    try {
      for (const path of [`/decks/${decks.digimon!.id}?format=text`, `/decks/${decks.digimon!.id}/text?format=snapdeck`]) {
        const r = await fetch(`${gateway.url}/v1${path}`, { headers: key() });
        expect(r.status).toBe(500);
        expect(r.headers.get('content-type')).toBe('application/json');
        expect(r.headers.get('x-content-type-options')).toBe('nosniff');
        expect(r.headers.get('access-control-allow-origin')).toBe('*');
        expect(await r.json()).toEqual({ error: ERRORS.internal });
      }
      // Errors that do not need the catalog are still the documented ones.
      expect((await gateway.client.get(`/decks/${newId()}?format=text`)).status).toBe(404);
    } finally {
      await gateway.close();
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('answers CORS preflights for the deck endpoints, allowing X-API-Key and Content-Type', async () => {
    for (const [path, method] of [['/decks/details', 'POST'], ['/decks/public?gameId=digimon', 'GET'], [`/decks/${decks.digimon!.id}`, 'GET']] as const) {
      const r = await fetch(`${env.gateway.base}${path}`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://example.com', 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'x-api-key, content-type' },
      });
      expect(r.status).toBe(204);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('access-control-allow-methods')).toContain(method);
      const allowed = r.headers.get('access-control-allow-headers')!.toLowerCase();
      expect(allowed).toContain('x-api-key');
      expect(allowed).toContain('content-type');
    }
  });
});

describe('the per-address limit of GET /v1/decks/{deckId}', () => {
  it('429 Rate limit exceeded with Retry-After once an address has used its quota; X-Forwarded-For is ignored', async () => {
    const gateway = await startExtraGateway(env, { addressQuota: 3 });
    try {
      const id = decks.digimon!.id;
      const first = await gateway.client.get(`/decks/${id}`);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-limit')).toBe('3');
      expect(first.headers.get('ratelimit-remaining')).toBe('2');
      expect((await gateway.client.get(`/decks/${newId()}`)).status).toBe(404); // every request counts
      expect((await gateway.client.get(`/decks/${id}?format=xml`)).status).toBe(400);
      for (const headers of [{}, { 'X-Forwarded-For': '203.0.113.7' }, { 'X-Forwarded-For': '198.51.100.1, 127.0.0.1' }, { 'X-Real-IP': '203.0.113.8' }, { 'X-API-Key': env.key }] as Record<string, string>[]) {
        const limited = await gateway.client.get(`/decks/${id}`, headers);
        expect(limited.status).toBe(429);
        expect(limited.body).toEqual({ error: ERRORS.rateLimitExceeded });
        const retryAfter = Number(limited.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(900);
      }
      // 429 comes before the format and the deck checks.
      expect((await gateway.client.get(`/decks/${id}?format=xml`)).status).toBe(429);
      expect((await gateway.client.get(`/decks/${newId()}`)).status).toBe(429);
      // Keyed endpoints are counted per key, not per address.
      expect((await gateway.client.get(`/decks/${id}/text?format=snapdeck`, key())).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('searching spends a bucket of its own (--search-quota): never a deck-link view, nor the reverse', async () => {
    const gateway = await startExtraGateway(env, { addressQuota: 2, searchQuota: 3 });
    try {
      const id = decks.digimon!.id;
      const search = async () => {
        const response = await fetch(`${gateway.url}${SEARCH_PATHS.descriptor(findGame('digimon')!.searchIndexName)}`);
        await response.arrayBuffer();
        return response;
      };
      // Searches first, up to their quota: the deck views are all still there.
      for (let i = 0; i < 3; i++) {
        const searched = await search();
        expect(searched.status).toBe(200);
        expect(searched.headers.get('ratelimit-limit')).toBe('3');
        expect(searched.headers.get('ratelimit-remaining')).toBe(String(2 - i));
      }
      expect((await search()).status).toBe(429);
      const viewed = await gateway.client.get(`/decks/${id}`);
      expect(viewed.status).toBe(200);
      expect(viewed.headers.get('ratelimit-limit')).toBe('2');
      expect(viewed.headers.get('ratelimit-remaining')).toBe('1');
      expect((await gateway.client.get(`/decks/${id}`)).status).toBe(200);
      expect((await gateway.client.get(`/decks/${id}`)).status).toBe(429);
      // And the search bucket was not touched by the deck views.
      expect((await search()).headers.get('ratelimit-remaining')).toBe('0');
    } finally {
      await gateway.close();
    }
  });

  it('behind one trusted proxy, the client is the rightmost X-Forwarded-For entry: a forged left part changes nothing', async () => {
    const gateway = await startExtraGateway(env, { addressQuota: 2, trustProxy: 1 });
    try {
      const id = decks.gundam!.id;
      const as = (forwarded: string) => ({ 'X-Forwarded-For': forwarded });
      expect((await gateway.client.get(`/decks/${id}`, as('203.0.113.1'))).status).toBe(200);
      // What the client wrote stands left of what the proxy appended.
      expect((await gateway.client.get(`/decks/${id}`, as('198.51.100.7, 203.0.113.1'))).status).toBe(200);
      for (const forged of ['198.51.100.8', '198.51.100.9, 10.1.1.1', 'not-an-address', '203.0.113.99']) {
        const limited = await gateway.client.get(`/decks/${id}`, as(`${forged}, 203.0.113.1`));
        expect(limited.status).toBe(429);
        expect(limited.body).toEqual({ error: ERRORS.rateLimitExceeded });
        expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      expect((await gateway.client.get(`/decks/${id}`, as('203.0.113.2'))).status).toBe(200);
      expect((await gateway.client.get(`/decks/${id}`, as('203.0.113.1, 203.0.113.3'))).status).toBe(200);
      expect((await gateway.client.get(`/decks/${id}`)).status).toBe(200); // no header: the proxy itself
    } finally {
      await gateway.close();
    }
  });

  it('behind N trusted proxies (--trust-proxy N), the client is the Nth entry from the right', async () => {
    const gateway = await startExtraGateway(env, { addressQuota: 2, trustProxy: 2 });
    try {
      const id = decks.gundam!.id;
      // client → edge proxy (appends the client) → inner proxy (appends the edge) → gateway
      const via = (forged: string, client: string) => ({ 'X-Forwarded-For': `${forged}${client}, 10.0.0.5` });
      expect((await gateway.client.get(`/decks/${id}`, via('', '203.0.113.21'))).status).toBe(200);
      expect((await gateway.client.get(`/decks/${id}`, via('198.51.100.1, ', '203.0.113.21'))).status).toBe(200);
      expect((await gateway.client.get(`/decks/${id}`, via('198.51.100.2, ', '203.0.113.21'))).status).toBe(429);
      expect((await gateway.client.get(`/decks/${id}`, via('', '203.0.113.22'))).status).toBe(200);
      // The inner proxy's own entry is not the client: other clients through it are counted apart.
      expect((await gateway.client.get(`/decks/${id}`, via('203.0.113.21, ', '203.0.113.23'))).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
