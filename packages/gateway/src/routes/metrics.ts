import type { GatewayRoutes } from '../router.ts';
import { sendRendered } from '../http/response.ts';

/**
 * GET /metrics: Prometheus text format, outside /v1, no key. It tells how busy the gateway is and
 * which versions it serves; bind the gateway to a private address or filter /metrics at the proxy
 * if that is not for everyone.
 */
export function metricsRoutes({ get, metrics }: GatewayRoutes): void {
  get('/metrics', async (c) =>
    sendRendered(c, await metrics.registry.metrics(), { contentType: metrics.registry.contentType, cacheControl: 'no-store' }),
  );
}
