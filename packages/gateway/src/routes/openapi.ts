import { buildOpenApiDocument } from '@snapdeck/contract';
import { contentTag } from '@snapdeck/snapshot';
import type { GatewayRoutes } from '../app.ts';
import { CACHE } from '../http/cache-policy.ts';
import { sendRepresentation } from '../http/send.ts';

/** GET /v1/openapi.json: public, generated once from the contract's zod schemas. */
export function openApiRoutes({ get }: GatewayRoutes): void {
  let cached: { bytes: Buffer; etag: string } | undefined;
  get('/v1/openapi.json', (c) => {
    if (!cached) {
      const bytes = Buffer.from(JSON.stringify(buildOpenApiDocument()));
      cached = { bytes, etag: contentTag(bytes) };
    }
    return sendRepresentation(c, { ...cached, encoding: 'identity', contentType: 'application/json', cacheControl: CACHE.openapi });
  });
}
