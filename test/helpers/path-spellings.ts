/**
 * Other spellings of a path (the request-path check): what a client can send, with `curl --path-as-is`,
 * instead of `/metrics` or `/v1/games` and still be routed there by a server that resolves dot
 * segments and percent-decodes (as the gateway's URL parsing and Hono's router do), or would be
 * by one that also took `%2F` or `\` for `/`.
 */
export interface Spelling {
  name: string;
  spell(path: string): string;
  /**
   * Not in normal form per decisions.md (a `.`/`..` segment, plain or encoded; an encoded `/`;
   * `//`): the gateway answers 400 `Invalid request path` itself. The others are refused by the
   * shipped VCL only (`node-server`: @hono/node-server refuses it before the app, a bare 400).
   */
  gateway: 'invalid path' | 'node-server' | 'routes it';
}

const hex = (ch: string) => ch.charCodeAt(0).toString(16);
/** `/metrics` → `/%6detrics`: the first letter percent-encoded, in lower- or upper-case hex. */
const encodeFirst = (path: string, upper: boolean) => path.replace(/^\/(.)/, (_, ch: string) => `/%${upper ? hex(ch).toUpperCase() : hex(ch)}`);

const ALL: Spelling[] = [
  { name: 'x/..', spell: (p) => `/x/..${p}`, gateway: 'invalid path' },
  { name: 'healthz/..', spell: (p) => `/healthz/..${p}`, gateway: 'invalid path' },
  { name: '.', spell: (p) => `/.${p}`, gateway: 'invalid path' },
  { name: '%2e', spell: (p) => `/%2e${p}`, gateway: 'invalid path' },
  { name: '%2E', spell: (p) => `/%2E${p}`, gateway: 'invalid path' },
  { name: 'x/%2e%2e', spell: (p) => `/x/%2e%2e${p}`, gateway: 'invalid path' },
  { name: 'x/%2E%2E', spell: (p) => `/x/%2E%2E${p}`, gateway: 'invalid path' },
  { name: 'x/.%2e', spell: (p) => `/x/.%2e${p}`, gateway: 'invalid path' },
  { name: 'x/%2E.', spell: (p) => `/x/%2E.${p}`, gateway: 'invalid path' },
  { name: 'x/y/../..', spell: (p) => `/x/y/../..${p}`, gateway: 'invalid path' },
  { name: 'mixed x/./y/%2e%2E/..', spell: (p) => `/x/./y/%2e%2E/..${p}`, gateway: 'invalid path' },
  { name: 'trailing /.', spell: (p) => `${p}/.`, gateway: 'invalid path' },
  { name: 'trailing /%2e', spell: (p) => `${p}/%2e`, gateway: 'invalid path' },
  { name: 'trailing /x/..', spell: (p) => `${p}/x/..`, gateway: 'invalid path' },
  { name: 'x%2f..', spell: (p) => `/x%2f..${p}`, gateway: 'invalid path' },
  { name: 'x%2F..', spell: (p) => `/x%2F..${p}`, gateway: 'invalid path' },
  { name: 'every / as %2F', spell: (p) => `/${p.slice(1).replaceAll('/', '%2F')}`, gateway: 'invalid path' },
  { name: 'leading //', spell: (p) => `/${p}`, gateway: 'invalid path' },
  { name: 'inner //', spell: (p) => p.replace(/\/([^/]*)$/, '//$1'), gateway: 'invalid path' },
  { name: 'x//..', spell: (p) => `/x//..${p}`, gateway: 'invalid path' },
  { name: 'absolute-form http://host/x/..', spell: (p) => `http://127.0.0.1/x/..${p}`, gateway: 'invalid path' },
  { name: 'backslash x\\..\\', spell: (p) => `/x\\..${p.replaceAll('/', '\\')}`, gateway: 'node-server' },
  { name: 'x%5c..', spell: (p) => `/x%5c..${p}`, gateway: 'routes it' },
  { name: 'x%5C..%5C', spell: (p) => `/x%5C..%5C${p.slice(1)}`, gateway: 'routes it' },
  { name: 'first letter %xx', spell: (p) => encodeFirst(p, false), gateway: 'routes it' },
  { name: 'first letter %XX', spell: (p) => encodeFirst(p, true), gateway: 'routes it' },
  { name: 'fragment #', spell: (p) => `${p}#x`, gateway: 'routes it' },
  { name: 'fragment #/../', spell: (p) => `${p}#/../x`, gateway: 'routes it' },
];

/** The spellings of `path` that differ from it (`every / as %2F` leaves `/metrics` as it is). */
export function spellingsOf(path: string): Array<Spelling & { target: string }> {
  return ALL.map((spelling) => ({ ...spelling, target: spelling.spell(path) })).filter((spelling) => spelling.target !== path);
}

export const SPELLING_NAMES = ALL.map((spelling) => spelling.name);

/** A path the shipped VCL has a rule for, as a client sends it normally. */
export interface GuardedPath {
  method: 'GET' | 'POST';
  path: string;
  /** Appended after the spelled path, with its `?`. */
  query: string;
  /** Sent with the shipped VCL's keyed routes. */
  key: boolean;
  /** The gateway's route pattern (its /metrics counts answers by it). */
  route: string;
  /** What the VCL does with the path spelled normally. */
  rule: string;
}

/**
 * Every path the shipped VCL treats specially (read from deploy/varnish/snapdeck.vcl): /metrics,
 * the keyed routes, a deck asked with a token; and the probes, docs and document besides.
 */
export function guardedPaths(ids: { deck: string; card: string; token: string }): GuardedPath[] {
  const path = (method: GuardedPath['method'], p: string, query: string, key: boolean, route: string, rule: string): GuardedPath => ({ method, path: p, query, key, route, rule });
  return [
    path('GET', '/metrics', '', false, '/metrics', 'answered 404 by the cache'),
    path('GET', '/healthz', '', false, '/healthz', 'passed on, never stored'),
    path('GET', '/readyz', '', false, '/readyz', 'passed on, never stored'),
    path('GET', '/v1/games', '', true, '/v1/games', 'keyed: the key in the cache key'),
    path('GET', '/v1/games/digimon/cards', '?hitsPerPage=10', true, '/v1/games/:slug/cards', 'keyed'),
    path('GET', `/v1/games/digimon/cards/${ids.card}`, '', true, '/v1/games/:slug/cards/:cardId', 'keyed'),
    path('GET', '/v1/decks/public', '?gameId=digimon', true, '/v1/decks/public', 'keyed'),
    path('POST', '/v1/decks/details', '', true, '/v1/decks/details', 'keyed, passed (POST)'),
    path('GET', `/v1/decks/${ids.deck}/text`, '?format=snapdeck', true, '/v1/decks/:deckId/text', 'keyed'),
    path('GET', `/v1/decks/${ids.deck}`, `?token=${ids.token}`, false, '/v1/decks/:deckId', 'token: passed'),
    path('GET', '/docs', '', false, '/docs', 'stored as public'),
    path('GET', '/v1/openapi.json', '', false, '/v1/openapi.json', 'stored as public'),
  ];
}
