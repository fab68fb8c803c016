import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { FsDriver, build } from '@snapdeck/snapshot';
import { DeprecationConfigError, parseDeprecations, redactedUrl, startGateway, type RunningGateway } from '@snapdeck/gateway';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli, startCliGateway } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
let gateway: RunningGateway;
const logLines: Array<Record<string, any>> = [];
let rawLog = '';

const DEPRECATIONS = [
  { path: '/v1/games', announcedAt: '2026-01-15', sunsetAt: '2026-07-01T12:00:00Z', link: 'https://docs.example.com/deprecations/games' },
  { method: 'GET', path: '/v1/games/:slug/cards', announcedAt: '2026-02-01T00:00:00Z', sunsetAt: '2026-08-01', link: 'https://docs.example.com/deprecations/cards' },
];

const DEPRECATED_HEADERS = ['Deprecation', 'Sunset', 'Link'];
const games = { Deprecation: `@${Date.parse('2026-01-15T00:00:00Z') / 1000}`, Sunset: 'Wed, 01 Jul 2026 12:00:00 GMT', Link: '<https://docs.example.com/deprecations/games>; rel="sunset"' };
const cards = { Deprecation: `@${Date.parse('2026-02-01T00:00:00Z') / 1000}`, Sunset: 'Sat, 01 Aug 2026 00:00:00 GMT', Link: '<https://docs.example.com/deprecations/cards>; rel="sunset"' };
const check = (response: Response, expected: Record<string, string> | null) => {
  for (const name of DEPRECATED_HEADERS) expect(response.headers.get(name), name).toBe(expected ? expected[name]! : null);
};

function createKey(quota?: number): { key: string; id: string } {
  const db = openDatabase(join(dir, 'snapdeck.db'));
  try {
    const { key, record } = new KeyStore(db).create({ name: 'ops', quota });
    return { key, id: record.id };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-ops-'));
  await writeGeneratedCatalog(join(dir, 'catalog'), { 'chrono-core': 30, digimon: 10, gundam: 10, 'grand-archive': 10 });
  // Only chrono-core at first: the gateway is not ready until every public game has a snapshot.
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1], games: ['chrono-core'] });
  const sink = {
    write(line: string) {
      rawLog += line;
      logLines.push(JSON.parse(line));
    },
  };
  gateway = await startGateway({
    port: 0,
    host: '127.0.0.1',
    snapshots: join(dir, 'snapshots'),
    db: join(dir, 'snapdeck.db'),
    pointerTtlMs: 100,
    log: pino({ level: 'info' }, sink),
    deprecations: parseDeprecations(DEPRECATIONS),
  });
});

afterAll(async () => {
  await gateway?.close();
  await cleanup?.();
});

describe('health probes', () => {
  it('GET /healthz answers 200 {"status":"ok"} without a key', async () => {
    const response = await fetch(`${gateway.url}/healthz`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 503 naming the games without a snapshot, then 200 once all are loaded', async () => {
    const before = await fetch(`${gateway.url}/readyz`);
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({ status: 'not ready', missing: ['digimon', 'gundam', 'grand-archive'] });

    await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [1] });
    let response = await fetch(`${gateway.url}/readyz`);
    for (let i = 0; i < 50 && response.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      response = await fetch(`${gateway.url}/readyz`);
    }
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; versions: Record<string, string> };
    expect(body.status).toBe('ready');
    expect(Object.keys(body.versions).sort()).toEqual(['chrono-core', 'digimon', 'grand-archive', 'gundam']);
  });
});

describe('access log', () => {
  it('writes one JSON line per request, without the key, tokens or cursors', async () => {
    const { key, id } = createKey();
    logLines.length = 0;
    rawLog = '';
    const response = await fetch(`${gateway.url}/v1/games/chrono-core/cards?hitsPerPage=1&cursor=SECRETCURSOR&token=pd_SECRETTOKEN&%74oken=SECRET2`, {
      headers: { 'X-API-Key': key, 'X-Request-Id': 'req-123' },
    });
    expect(response.status).toBe(400); // the cursor is not a real one
    const body = await response.arrayBuffer();
    await fetch(`${gateway.url}/nowhere/at/all`);

    const lines = logLines.filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(2);
    const [first, second] = lines;
    expect(first).toMatchObject({
      level: 30,
      requestId: 'req-123',
      method: 'GET',
      route: '/v1/games/:slug/cards',
      url: '/v1/games/chrono-core/cards?hitsPerPage=1&cursor=[REDACTED]&token=[REDACTED]&token=[REDACTED]', // names decoded: %74oken is token
      status: 400,
      bytes: body.byteLength,
      keyId: id,
    });
    expect(typeof first!.durationMs).toBe('number');
    expect(second).toMatchObject({ route: 'unmatched', status: 404, url: '/nowhere/at/all' });
    expect(second!.keyId).toBeUndefined();
    for (const secret of [key, 'SECRETCURSOR', 'SECRETTOKEN', 'SECRET2']) expect(rawLog).not.toContain(secret);
  });

  it('logs the values of the API\'s own harmless parameters only, and masks anything shaped like a secret wherever it stands', () => {
    const pd = `pd_${'9'.repeat(32)}`;
    const st = `st_${'a'.repeat(32)}`;
    expect(redactedUrl('http://h:1/v1/decks/abc?token=x&foo=1')).toBe('/v1/decks/abc?token=[REDACTED]&foo=[REDACTED]');
    expect(redactedUrl('http://h:1/v1/x?Cursor=a&cursor&TOKEN=b&tokens=c')).toBe('/v1/x?Cursor=[REDACTED]&cursor&TOKEN=[REDACTED]&tokens=[REDACTED]');
    expect(redactedUrl('http://h:1/v1/x?%ZZ=1&to%6Ben=2')).toBe('/v1/x??=[REDACTED]&token=[REDACTED]');
    expect(redactedUrl('http://h:1/v1/games/digimon/cards?hitsPerPage=100&cursor=abc')).toBe('/v1/games/digimon/cards?hitsPerPage=100&cursor=[REDACTED]');
    expect(redactedUrl('http://h:1/v1/decks/public?gameId=gundam&sort=updatedAt&limit=5&updatedSince=2026-01-01T00:00:00Z')).toBe(
      '/v1/decks/public?gameId=gundam&sort=updatedAt&limit=5&updatedSince=2026-01-01T00:00:00Z',
    );
    // Spellings the gateway does not read as `token`, and secrets where no parameter is expected:
    // none may reach the log.
    for (const url of [`/v1/decks/a?tok%65n%3D${pd}`, `/v1/decks/a?x;token=${pd}`, `/v1/decks/a?${pd}`, `/v1/decks/${pd}`, `/v1/decks/pd_%39${'9'.repeat(31)}`, `/v1/decks/a?format=${st.toUpperCase()}`]) {
      const logged = redactedUrl(`http://h:1${url}`);
      expect(logged.toLowerCase()).not.toMatch(/(st_|pd_)[0-9a-f]{32}/);
    }
    expect(redactedUrl('http://h:1/healthz')).toBe('/healthz');
  });

  it('never logs or echoes a key, token or pd_ link sent as the client header or the request id', async () => {
    const { key } = createKey();
    const secrets = [key, `st_${'ab'.repeat(16)}`, `pd_${'cd'.repeat(16)}`, `x_pd_${'ef'.repeat(16)}`];
    for (const secret of secrets) {
      logLines.length = 0;
      rawLog = '';
      const response = await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key, 'X-Client': `@snapdeck/client/${secret}`, 'X-Request-Id': secret } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      // A secret is no request id: the answer carries a new one, as for any id that is not sane.
      const echoed = response.headers.get('x-request-id')!;
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
      const [line] = logLines.filter((l) => l.msg === 'request');
      expect(line).toMatchObject({ requestId: echoed });
      expect(line!.client).toBe(`@snapdeck/client/${secret.startsWith('x_') ? `x_${secret.slice(2, 14)}` : secret.slice(0, 12)}…`);
      expect(rawLog).not.toContain(secret.replace(/^x_/, ''));
    }
    // A plain request id and client name are kept as given.
    logLines.length = 0;
    await (await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key, 'X-Client': '@snapdeck/client/1.2.0', 'X-Request-Id': 'req-456' } })).arrayBuffer();
    expect(logLines.find((l) => l.msg === 'request')).toMatchObject({ requestId: 'req-456', client: '@snapdeck/client/1.2.0' });
  });
});

describe('GET /metrics', () => {
  it('exposes requests by route and status, latency by route, cache and version figures, process metrics', async () => {
    const { key } = createKey();
    for (let i = 0; i < 3; i++) await (await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key } })).arrayBuffer();
    await (await fetch(`${gateway.url}/v1/games`)).arrayBuffer(); // 401
    await (await fetch(`${gateway.url}/v1/games/chrono-core/cards`, { headers: { 'X-API-Key': key } })).arrayBuffer();
    await (await fetch(`${gateway.url}/v1/no/such/${Math.random()}`)).arrayBuffer();
    const response = await fetch(`${gateway.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const value = (line: string) => Number(text.split('\n').find((l) => l.startsWith(`${line} `))?.slice(line.length + 1));
    expect(value('snapdeck_http_requests_total{route="/v1/games",status="200"}')).toBeGreaterThanOrEqual(3);
    expect(value('snapdeck_http_requests_total{route="/v1/games",status="401"}')).toBeGreaterThanOrEqual(1);
    expect(value('snapdeck_http_requests_total{route="/v1/games/:slug/cards",status="200"}')).toBeGreaterThanOrEqual(1);
    expect(value('snapdeck_http_requests_total{route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
    // Unknown paths never become labels of their own.
    expect(text).not.toContain('/v1/no/such');
    expect(value('snapdeck_http_request_duration_seconds_count{route="/v1/games"}')).toBeGreaterThanOrEqual(4);
    expect(text).toMatch(/^snapdeck_http_request_duration_seconds_bucket\{le="0\.005",route="\/v1\/games"\} \d+$/m);
    expect(value('snapdeck_snapshot_cache_hits_total') + value('snapdeck_snapshot_cache_misses_total')).toBeGreaterThan(0);
    expect(text).toMatch(/^snapdeck_snapshot_version\{game="chrono-core",version="[^"]+"\} 1$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });
});

describe('deprecation headers', () => {
  it('are on every response of a deprecated route, errors included', async () => {
    const { key } = createKey(2);
    const ok = await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key } });
    expect(ok.status).toBe(200);
    check(ok, games);
    const unauthorized = await fetch(`${gateway.url}/v1/games`);
    expect(unauthorized.status).toBe(401);
    check(unauthorized, games);
    await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key } });
    const limited = await fetch(`${gateway.url}/v1/games`, { headers: { 'X-API-Key': key } });
    expect(limited.status).toBe(429);
    check(limited, games);
    const wrongMethod = await fetch(`${gateway.url}/v1/games`, { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toEqual({ error: ERRORS.methodNotAllowed });
    check(wrongMethod, games);
    // The headers are exposed to browsers.
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/Deprecation.*Sunset.*Link/);
  });

  it('follow route patterns and methods, and leave other routes alone', async () => {
    const { key } = createKey();
    const notFound = await fetch(`${gateway.url}/v1/games/nope/cards`, { headers: { 'X-API-Key': key } });
    expect(notFound.status).toBe(404);
    check(notFound, cards);
    const head = await fetch(`${gateway.url}/v1/games/chrono-core/cards`, { method: 'HEAD', headers: { 'X-API-Key': key } });
    check(head, cards);
    const post = await fetch(`${gateway.url}/v1/games/chrono-core/cards`, { method: 'POST', headers: { 'X-API-Key': key } });
    expect(post.status).toBe(405);
    check(post, null); // deprecated for GET only
    check(await fetch(`${gateway.url}/v1/games/chrono-core/cards/WNR01-001`, { headers: { 'X-API-Key': key } }), null);
    check(await fetch(`${gateway.url}/healthz`), null);
  });

  it('rejects a malformed list with every problem named', () => {
    expect(() =>
      parseDeprecations([{ path: 'v1/games', announcedAt: 'yesterday', sunsetAt: '2026-01-01', link: 'not a url', extra: 1 }]),
    ).toThrowError(DeprecationConfigError);
    try {
      parseDeprecations([{ path: 'v1/games', announcedAt: 'yesterday', sunsetAt: '2026-01-01', link: 'not a url', extra: 1 }]);
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('[0].path');
      expect(message).toContain('[0].announcedAt');
      expect(message).toContain('[0].link');
      expect(message).toContain('extra');
    }
    expect(() => parseDeprecations([{ path: '/v1/games', announcedAt: '2026-02-01', sunsetAt: '2026-01-01', link: 'https://x.example' }])).toThrow(
      /sunsetAt must not be before announcedAt/,
    );
    expect(() => parseDeprecations({ path: '/v1/games' })).toThrow(/expected array/i);
  });
});

describe('snapdeck serve flags', () => {
  it('--deprecations FILE: a bad file stops the start-up with a clear message', async () => {
    const bad = join(dir, 'bad-deprecations.json');
    await writeFile(bad, JSON.stringify([{ path: '/v1/games', announcedAt: '2026-01-01', sunsetAt: 'soon', link: 'https://x.example' }]));
    const result = await runCli(['serve', '--port', '0', '--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--deprecations', bad]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the deprecations file ${bad} is not a valid deprecation list`);
    expect(result.stderr).toContain('[0].sunsetAt');

    const notJson = join(dir, 'not-json.json');
    await writeFile(notJson, '[{');
    const second = await runCli(['serve', '--port', '0', '--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--deprecations', notJson]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('is not valid JSON');
  });

  it('--deprecations FILE and the default JSON access log on stdout (LOG_LEVEL=info)', async () => {
    const good = join(dir, 'deprecations.json');
    await writeFile(good, JSON.stringify(DEPRECATIONS));
    const { key } = createKey();
    const cli = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db'), '--deprecations', good], {
      env: { LOG_LEVEL: 'info' },
    });
    try {
      const response = await fetch(`${cli.url}/v1/games`, { headers: { 'X-API-Key': key } });
      expect(response.status).toBe(200);
      check(response, games);
      await response.arrayBuffer();
      await (await fetch(`${cli.url}/v1/games/chrono-core/cards?token=pd_secret`, { headers: { 'X-API-Key': key } })).arrayBuffer();
    } finally {
      expect(await cli.stop()).toBe(0);
    }
    const lines = cli
      .output()
      .stdout.split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'request');
    expect(lines.map((l) => [l.route, l.status])).toEqual([
      ['/v1/games', 200],
      ['/v1/games/:slug/cards', 200],
    ]);
    expect(cli.output().stdout).not.toContain('pd_secret');
    expect(cli.output().stdout).not.toContain(key);
  });

  it('LOG_LEVEL=silent writes no access log', async () => {
    const { key } = createKey();
    const cli = await startCliGateway(['--snapshots', join(dir, 'snapshots'), '--db', join(dir, 'snapdeck.db')], { env: { LOG_LEVEL: 'silent' } });
    try {
      await (await fetch(`${cli.url}/v1/games`, { headers: { 'X-API-Key': key } })).arrayBuffer();
    } finally {
      expect(await cli.stop()).toBe(0);
    }
    expect(cli.output().stdout).toBe('');
  });
});
