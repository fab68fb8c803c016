/**
 * The client fetches a version's search files only from the origin of its own baseUrl, unless
 * the partner allows another (decisions.md "Search"): a descriptor naming another origin (here
 * rewritten by a proxy in front of the gateway) is a SearchOriginError before anything is fetched
 * from there; with `searchOrigins` naming that origin, the search runs from it.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_INDEX_NAMES, SEARCH_PATHS } from '@snapdeck/contract';
import { SearchOriginError, SnapdeckClient, SnapdeckError } from '@snapdeck/client';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { startTestGateway, tempDir, type TestGateway } from './helpers/harness.ts';
import { startTamperingProxy, type TamperingProxy } from './helpers/tampering-proxy.ts';

const GAME = 'chrono-core';
const DESCRIPTOR = SEARCH_PATHS.descriptor(SEARCH_INDEX_NAMES[GAME]);

let gateway: TestGateway;
let cleanup: () => Promise<void>;
/** What the client's baseUrl names: the gateway, behind a proxy that can rewrite the descriptor. */
let front: TamperingProxy;
/** Another origin serving the same files (a CDN, or anything a descriptor could name). */
let other: TamperingProxy;
let card: { id: string; name: string };

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = await tempDir());
  const cards = await writeGeneratedCatalog(join(dir, 'catalog'), { [GAME]: 12 });
  card = cards[GAME]![3]! as unknown as { id: string; name: string };
  await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [100] });
  gateway = await startTestGateway({ snapshots: join(dir, 'snapshots'), db: join(dir, 'snapdeck.db') });
  other = await startTamperingProxy(gateway.url);
  front = await startTamperingProxy(gateway.url);
}, 120_000);

afterAll(async () => {
  await front?.close();
  await other?.close();
  await gateway?.close();
  await cleanup?.();
});

/** The front proxy answers descriptors whose baseUrl is on `origin` (the same path). */
function descriptorsNaming(origin: string): void {
  front.tamper = (path, body) => {
    if (path !== DESCRIPTOR) return undefined;
    const descriptor = JSON.parse(body.toString('utf8')) as { data: { baseUrl: string } };
    descriptor.data.baseUrl = `${origin}${descriptor.data.baseUrl}`;
    return JSON.stringify(descriptor);
  };
}

const searchFiles = (requests: readonly string[]) => requests.filter((path) => path.startsWith('/v1/search/') && path !== DESCRIPTOR);

describe('a search descriptor naming another origin', () => {
  it('is a SearchOriginError, and nothing is fetched from that origin', async () => {
    descriptorsNaming(other.url);
    const client = new SnapdeckClient({ baseUrl: `${front.url}/v1` });
    const refused = await client.searchCards(GAME, card.name).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SearchOriginError);
    expect(refused).toBeInstanceOf(SnapdeckError);
    expect(refused).toMatchObject({ error: 'Search origin not allowed', method: 'GET', url: expect.stringMatching(new RegExp(`^${other.url}/v1/search/`)) });
    expect((refused as SnapdeckError).detail).toContain('searchOrigins');
    expect(other.requests).toEqual([]);
    expect(searchFiles(front.requests)).toEqual([]);
  });

  it('is followed once the client allows that origin (searchOrigins), and only from there', async () => {
    descriptorsNaming(other.url);
    // Not without the option: the option is what allows it.
    await expect(new SnapdeckClient({ baseUrl: `${front.url}/v1` }).searchCards(GAME, card.name)).rejects.toBeInstanceOf(SearchOriginError);
    expect(other.requests).toEqual([]);
    const client = new SnapdeckClient({ baseUrl: `${front.url}/v1`, searchOrigins: [other.url] });
    const before = front.requests.length;
    const found = await client.searchCards(GAME, card.name);
    expect(found.hits.map((hit) => hit.id)).toContain(card.id);
    const fetched = searchFiles(other.requests).map((path) => path.split('/').pop()!.split('?')[0]);
    expect(fetched).toEqual(expect.arrayContaining(['pagefind.js', 'pagefind-entry.json', 'wasm.en.pagefind']));
    expect(searchFiles(front.requests.slice(before))).toEqual([]);
  });
});

describe('the searchOrigins option', () => {
  it('allows the origins it names, not others, and a descriptor naming the baseUrl\'s own origin needs none', async () => {
    descriptorsNaming(other.url);
    const elsewhere = new SnapdeckClient({ baseUrl: `${front.url}/v1`, searchOrigins: ['https://cdn.partner.example', 'http://127.0.0.1:1'] });
    await expect(elsewhere.searchCards(GAME, card.name)).rejects.toBeInstanceOf(SearchOriginError);
    const sameOrigin = new SnapdeckClient({ baseUrl: `${front.url}/v1` });
    descriptorsNaming(front.url);
    expect((await sameOrigin.searchCards(GAME, card.name)).hits.map((hit) => hit.id)).toContain(card.id);
    // An origin written with a trailing slash is that origin.
    descriptorsNaming(other.url);
    const slash = new SnapdeckClient({ baseUrl: `${front.url}/v1`, searchOrigins: [`${other.url}/`] });
    expect((await slash.searchCards(GAME, card.name)).hits.map((hit) => hit.id)).toContain(card.id);
  });

  it('takes origins only (scheme, host and port): anything else is a TypeError when the client is made', () => {
    for (const value of ['cdn.partner.example', 'https://cdn.partner.example/files/', 'https://cdn.partner.example?x=1', 'data:text/plain,x', '']) {
      expect(() => new SnapdeckClient({ baseUrl: `${front.url}/v1`, searchOrigins: [value] }), value).toThrow(TypeError);
    }
  });
});
