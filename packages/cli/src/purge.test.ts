import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './program.ts';
import { KEYS_PER_REQUEST, MAX_DECK_KEYS, PurgeError, purgeSurrogateKeys, purgeTargets } from './purge.ts';

/** A cache stand-in on 127.0.0.1 that records every PURGE and answers `status`. */
let server: Server;
let url: string;
let status = 200;
let received: Array<{ method: string; surrogateKey: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push({ method: req.method!, surrogateKey: String(req.headers['surrogate-key']) });
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(status === 200 ? '{"purged":"…"}' : '{"error":"PURGE is not allowed from this address"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'snapdeck-purge-'));
  status = 200;
  received = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `snapdeck decks import` in-process; returns what it printed and its exit code. */
async function importDecks(lines: string[], ...args: string[]): Promise<{ out: string; err: string; code: number }> {
  const file = join(dir, 'decks.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  let out = '';
  let err = '';
  const output = { out: (s: string) => void (out += s), err: (s: string) => void (err += s) };
  const code = await runCli(['decks', 'import', file, '--db', join(dir, 'snapdeck.db'), ...args], { from: 'user', output });
  return { out, err, code };
}

/** n deck lines with ids 00000000-0000-4000-8000-<12 digits>. */
function decks(n: number, from = 0): { ids: string[]; lines: string[] } {
  const ids = Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(from + i).padStart(12, '0')}`);
  const lines = ids.map((id) =>
    JSON.stringify({ id, gameId: 'gundam', name: 'n', ownerDisplayName: 'o', visibility: 'public', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', cards: [] }),
  );
  return { ids, lines };
}

describe('purgeSurrogateKeys', () => {
  it('sends PURGE with the tokens space-separated, at most KEYS_PER_REQUEST a request, to every URL', async () => {
    const keys = Array.from({ length: KEYS_PER_REQUEST + 5 }, (_, i) => `deck:${i}`);
    expect(await purgeSurrogateKeys([url, `${url}second-cache`], keys)).toBe(2);
    expect(received).toHaveLength(4);
    expect(received.every((r) => r.method === 'PURGE')).toBe(true);
    const batches = received.map((r) => r.surrogateKey.split(' '));
    expect(batches.map((b) => b.length).sort((a, b) => a - b)).toEqual([5, 5, KEYS_PER_REQUEST, KEYS_PER_REQUEST]);
    expect(new Set(batches.flat())).toEqual(new Set(keys));
  });

  it('reports a refusal with its status and body, without retrying it', async () => {
    status = 403;
    await expect(purgeSurrogateKeys([url], ['key_0123456789ab'])).rejects.toThrow(new PurgeError(`${url}: HTTP 403: {"error":"PURGE is not allowed from this address"}`));
    expect(received).toHaveLength(1);
  });

  it('retries a 5xx, then reports it', async () => {
    status = 503;
    await expect(purgeSurrogateKeys([url], ['decks'])).rejects.toThrow(/HTTP 503/);
    expect(received).toHaveLength(3);
  });

  it('refuses a token the cache could not match safely', async () => {
    await expect(purgeSurrogateKeys([url], ['deck:(a|b)'])).rejects.toThrow(/not a surrogate key token/);
    expect(received).toHaveLength(0);
  });
});

describe('purgeTargets', () => {
  it('takes --purge, else SNAPDECK_PURGE_URL (several, separated by spaces or commas), else none', () => {
    expect(purgeTargets(['http://a/'], { SNAPDECK_PURGE_URL: 'http://b/' })).toEqual(['http://a/']);
    expect(purgeTargets(undefined, { SNAPDECK_PURGE_URL: ' http://b:6081 , http://c:6081/x  http://d/' })).toEqual(['http://b:6081/', 'http://c:6081/x', 'http://d/']);
    expect(purgeTargets(undefined, {})).toEqual([]);
    expect(purgeTargets(undefined, { SNAPDECK_PURGE_URL: '' })).toEqual([]);
    expect(() => purgeTargets(undefined, { SNAPDECK_PURGE_URL: 'varnish:6081' })).toThrow(/SNAPDECK_PURGE_URL: "varnish:6081" is not an http\(s\) URL/);
  });
});

describe('decks import --purge', () => {
  it('names every changed deck (upserted or deleted), in batches', async () => {
    const first = decks(200);
    expect((await importDecks(first.lines)).code).toBe(0);
    expect(received).toHaveLength(0);

    const changed = decks(150);
    const deleted = first.ids.slice(180, 190).map((id) => JSON.stringify({ id, deleted: true }));
    const missing = JSON.stringify({ id: '00000000-0000-4000-8000-999999999999', deleted: true });
    const result = await importDecks([...changed.lines, ...deleted, missing], '--purge', url);
    expect(result.code, result.err).toBe(0);
    expect(result.err).toBe(`purged 160 surrogate keys from ${url} (2 requests each)\n`);
    expect(received.map((r) => r.surrogateKey.split(' ').length)).toEqual([KEYS_PER_REQUEST, 160 - KEYS_PER_REQUEST]);
    expect(new Set(received.flatMap((r) => r.surrogateKey.split(' ')))).toEqual(new Set([...changed.ids, ...first.ids.slice(180, 190)].map((id) => `deck:${id}`)));
  });

  it(`purges the token of every deck response (decks) when more than ${MAX_DECK_KEYS} decks changed`, async () => {
    const result = await importDecks(decks(MAX_DECK_KEYS + 1).lines, '--purge', url);
    expect(result.code, result.err).toBe(0);
    expect(received).toEqual([{ method: 'PURGE', surrogateKey: 'decks' }]);
  });

  it('sends nothing when the import fails, and exits 1 after a committed import when the purge fails', async () => {
    const bad = await importDecks([...decks(2).lines, '{"id": "nope"}'], '--purge', url);
    expect(bad.code).toBe(1);
    expect(received).toHaveLength(0);

    status = 403;
    const refused = await importDecks(decks(1).lines, '--purge', url);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('1 decks upserted');
    expect(refused.err).toContain(`was imported, but purging the cache failed: ${url}: HTTP 403`);
    expect(refused.err).toContain(`curl -X PURGE -H 'Surrogate-Key: deck:00000000-0000-4000-8000-000000000000' ${url}`);
  });
});
