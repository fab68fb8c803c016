/**
 * Traffic for the container test's failure checks: card requests through Varnish that each miss
 * the cache (a card id not asked before, with the key: the key is part of the cache key), so
 * every one reaches a gateway while one is killed or stopped. Sent with node:http rather than
 * fetch: the failures are what is counted here (with their status), where the suite's fetch would
 * fail the test on the first response outside the OpenAPI document.
 */
import { readFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { join } from 'node:path';
import type { Ran } from './podman.ts';
import { ROOT } from '../helpers/readme-guide.ts';

const CARD_IDS = readFileSync(join(ROOT, 'data', 'catalog', 'digimon.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => (JSON.parse(line) as { id: string }).id);
let nextCard = 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const agent = new Agent({ keepAlive: true });

/** The status of GET `url` (0: no answer within 10 s), its body read and dropped. */
export function statusOf(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const request = get(url, { headers, agent, timeout: 10_000 }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode ?? 0));
      response.once('error', () => resolve(0));
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(0));
  });
}

export interface Failure {
  /** When the request was sent. */
  at: number;
  status: number;
}

/** Requests through Varnish, `workers` at a time, until `done()`; each failure's time and status are kept. */
async function missesUntil(varnish: string, key: string, done: () => boolean, workers = 4): Promise<{ requests: number; failures: Failure[] }> {
  let requests = 0;
  const failures: Failure[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!done()) {
        const id = CARD_IDS[nextCard++ % CARD_IDS.length]!;
        requests++;
        const sent = Date.now();
        const status = await statusOf(`${varnish}/v1/games/digimon/cards/${id}`, { 'X-API-Key': key });
        if (status !== 200) failures.push({ at: sent, status });
        await sleep(20);
      }
    }),
  );
  return { requests, failures };
}

/**
 * Load through Varnish for 2 s, a gateway killed, 8 s more. The probes take it out within their
 * window (2 failed of 3, 1 s apart, each waiting up to 1 s: about 3 s); a request sent to it
 * meanwhile is retried once on the next gateway by the VCL. A killed container's address is gone
 * (no refusal: the connect waits for its 2 s timeout), so a request sent then whose retry also
 * went to it can fail. `lateFailed`: failed requests sent more than 3 s after the kill.
 */
export async function loadWhileKilled(options: { varnish: string; key: string; kill: () => Promise<Ran> }): Promise<{ requests: number; failed: number; lateFailed: number; ms: number; failures: string }> {
  const started = Date.now();
  let killedAt = Infinity;
  let stop = false;
  const load = missesUntil(options.varnish, options.key, () => stop);
  await sleep(2000);
  killedAt = Date.now();
  const killed = await options.kill();
  if (killed.code !== 0) throw new Error(`kill failed: ${killed.stderr}`);
  await sleep(8000);
  stop = true;
  const { requests, failures } = await load;
  return { requests, failed: failures.length, lateFailed: failures.filter((f) => f.at - killedAt > 3000).length, ms: Date.now() - started, failures: describe(failures, killedAt) };
}

/** `503 sent at 1.2 s, …`: each failure's status and when it was sent, from `from`. */
function describe(failures: Failure[], from: number): string {
  return failures.map((f) => `${f.status} sent at ${((f.at - from) / 1000).toFixed(1)} s`).join(', ') || 'none';
}

/**
 * A gateway stopped (SIGTERM) while it is asked directly and through Varnish: when its /readyz
 * turned 503, when it last answered a request (the drain), how long the stop took, and how many
 * requests through Varnish failed meanwhile.
 */
export async function stopDraining(options: { gateway: string; varnish: string; key: string; stop: () => Promise<Ran> }): Promise<{ notReadyMs: number; lastServedMs: number; stopMs: number; throughVarnish: number; failedThroughVarnish: number; failures: string }> {
  const started = Date.now();
  let stopped = false;
  let notReadyMs = -1;
  let lastServedMs = -1;
  const stopping = options.stop().then((ran) => {
    stopped = true;
    if (ran.code !== 0) throw new Error(`stop failed: ${ran.stderr}`);
    return Date.now() - started;
  });
  const direct = (async () => {
    while (!stopped) {
      const [ready, games] = await Promise.all([statusOf(`${options.gateway}/readyz`), statusOf(`${options.gateway}/v1/games`, { 'X-API-Key': options.key })]);
      if (ready === 503 && notReadyMs < 0) notReadyMs = Date.now() - started;
      if (games === 200) lastServedMs = Date.now() - started;
      await sleep(100);
    }
  })();
  const varnish = missesUntil(options.varnish, options.key, () => stopped, 2);
  const stopMs = await stopping;
  await direct;
  const { requests, failures } = await varnish;
  return { notReadyMs, lastServedMs, stopMs, throughVarnish: requests, failedThroughVarnish: failures.length, failures: describe(failures, started) };
}
