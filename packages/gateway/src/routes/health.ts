import { GAME_SLUGS } from '@snapdeck/contract';
import { respond, sendRendered } from '../http/response.ts';
import type { GatewayRoutes } from '../router.ts';

const JSON_NO_STORE = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
const OK = JSON.stringify({ status: 'ok' });
const SHUTTING_DOWN = JSON.stringify({ status: 'shutting down' });

/**
 * Probes, outside /v1 and without a key:
 * - GET /healthz: 200 `{"status":"ok"}` while the process runs (liveness).
 * - GET /readyz: 200 `{"status":"ready","versions":{game: version}}` once a snapshot of every
 *   public game is loaded, else 503 `{"status":"not ready","missing":[games]}` (readiness). The
 *   probe itself asks the store for each game, so it also loads them; internal games are ignored.
 *   A gateway following a published store (`--store`) adds `store: {version, decksVersion,
 *   sequence, ageSeconds, refused?, problem?}` and is not ready (503) until it has loaded a
 *   version (or, with --max-store-age, while the version it has is older than that). `refused`:
 *   the pointer names an older version than the one served, which it keeps serving (still ready).
 *   Once a shutdown has begun (SIGTERM), 503 `{"status":"shutting down"}` at once, without asking
 *   storage: the balancer moves away during the drain (shutdown.ts).
 */
export function healthRoutes({ get, versions, log, store, shutdown }: GatewayRoutes): void {
  // Every 200 of a GET carries an ETag (CDN-ready HTTP), probes included; no-store all the same.
  get('/healthz', (c) => sendRendered(c, OK, { cacheControl: 'no-store' }));

  get('/readyz', async (c) => {
    if (shutdown?.draining) return respond(c, 503, SHUTTING_DOWN, JSON_NO_STORE);
    const missing: string[] = [];
    const loaded: Record<string, string> = {};
    await Promise.all(
      GAME_SLUGS.map(async (game) => {
        try {
          const version = await versions.snapshots.current(game);
          if (version) loaded[game] = version.version;
          else missing.push(game);
        } catch (error) {
          log.debug({ err: error, game }, 'readyz: snapshot not loadable');
          missing.push(game);
        }
      }),
    );
    // With --store: the store version served and its age (seconds since storage confirmed it).
    const status = store.status();
    const storeInfo = status.mode === 'store'
      ? {
          store: {
            version: status.version, decksVersion: status.decksVersion, sequence: status.sequence, ageSeconds: status.ageSeconds,
            ...(status.refused ? { refused: status.refused } : {}), ...(status.problem ? { problem: status.problem } : {}),
          },
        }
      : {};
    if (missing.length > 0 || !status.ready) {
      missing.sort((a, b) => GAME_SLUGS.indexOf(a as never) - GAME_SLUGS.indexOf(b as never));
      return respond(c, 503, JSON.stringify({ status: 'not ready', missing, ...storeInfo }), JSON_NO_STORE);
    }
    // In game order, so that the same versions always give the same bytes (and ETag).
    const ordered = Object.fromEntries(GAME_SLUGS.map((game) => [game, loaded[game]]));
    return sendRendered(c, JSON.stringify({ status: 'ready', versions: ordered, ...storeInfo }), { cacheControl: 'no-store' });
  });
}
