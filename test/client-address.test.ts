/**
 * `--trust-proxy N` (decisions.md "Authentication, scopes, rate limits"): the
 * per-address subject of GET /v1/decks/{deckId} is the Nth X-Forwarded-For entry from the right
 * only when the chain has N entries and that entry is an IP address; otherwise it is the socket's
 * peer (127.0.0.1 here). What is counted shows in RateLimit-Remaining across requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idGenerator, startDeckEnv, startExtraGateway, type DeckTestEnv } from './helpers/decks.ts';

let env: DeckTestEnv;
const newId = idGenerator(6180);

beforeAll(async () => {
  env = await startDeckEnv({ gundam: 20 });
}, 120_000);

afterAll(async () => {
  await env?.close();
});

/** RateLimit-Remaining after one GET /v1/decks/{id} with `forwarded` as X-Forwarded-For (none when undefined). */
async function remainingAfter(gateway: Awaited<ReturnType<typeof startExtraGateway>>, forwarded: string | undefined): Promise<number> {
  // Every request counts, a 404 too (decisions.md): an unknown deck keeps the test about the subject.
  const r = await gateway.client.get(`/decks/${newId()}`, forwarded === undefined ? {} : { 'X-Forwarded-For': forwarded });
  expect(r.status).toBe(404);
  return Number(r.headers.get('ratelimit-remaining'));
}

describe('--trust-proxy N: a chain the trusted proxies did not write counts against the socket peer', () => {
  it('a chain shorter than N falls back to the peer: forged single entries all count as one subject', async () => {
    const gateway = await startExtraGateway(env, { addressQuota: 10, trustProxy: 2 });
    try {
      // Two entries: the client as the edge proxy wrote it, then the edge as the inner proxy wrote it.
      expect(await remainingAfter(gateway, '203.0.113.21, 10.0.0.5')).toBe(9);
      expect(await remainingAfter(gateway, '203.0.113.21, 10.0.0.5')).toBe(8);
      // One entry where two proxies should have written two: nothing in it is trusted.
      expect(await remainingAfter(gateway, '198.51.100.1')).toBe(9);
      expect(await remainingAfter(gateway, '198.51.100.2')).toBe(8);
      expect(await remainingAfter(gateway, '198.51.100.3')).toBe(7);
      // The same subject as a request with no header at all: the socket's peer.
      expect(await remainingAfter(gateway, undefined)).toBe(6);
      expect(await remainingAfter(gateway, '')).toBe(5);
      // The full-length chain still counts against its client, apart from the peer.
      expect(await remainingAfter(gateway, '203.0.113.21, 10.0.0.5')).toBe(7);
    } finally {
      await gateway.close();
    }
  });

  it('an entry that is not an IP address falls back to the peer', async () => {
    const gateway = await startExtraGateway(env, { addressQuota: 10, trustProxy: 1 });
    try {
      expect(await remainingAfter(gateway, '203.0.113.7')).toBe(9);
      // Each would have been a subject of its own; they are all the peer.
      expect(await remainingAfter(gateway, 'a b c')).toBe(9);
      expect(await remainingAfter(gateway, 'not-an-address')).toBe(8);
      expect(await remainingAfter(gateway, '198.51.100.1, unknown')).toBe(7);
      expect(await remainingAfter(gateway, '203.0.113.7.1')).toBe(6);
      expect(await remainingAfter(gateway, '2001:db8::zz')).toBe(5);
      expect(await remainingAfter(gateway, undefined)).toBe(4);
      // Addresses of both families are clients of their own.
      expect(await remainingAfter(gateway, '2001:db8::1')).toBe(9);
      expect(await remainingAfter(gateway, '203.0.113.7')).toBe(8);
    } finally {
      await gateway.close();
    }
  });
});
