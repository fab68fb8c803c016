import { buildOpenApiDocument } from '@snapdeck/contract';
import { contentTag, type Body } from '@snapdeck/snapshot';
import type { GatewayRoutes } from '../app.ts';
import { CACHE } from '../http/cache-policy.ts';
import { sendAs, sendRepresentation } from '../http/send.ts';

/** GET /v1/openapi.json: public, generated once from the contract's zod schemas. */
export function openApiRoutes({ get }: GatewayRoutes): void {
  let document: Body | undefined;
  const as = sendAs('application/json', CACHE.openapi);
  get('/v1/openapi.json', (c) => {
    if (!document) {
      const bytes = Buffer.from(JSON.stringify(buildOpenApiDocument()));
      document = { bytes, etag: contentTag(bytes), encoding: 'identity' };
    }
    return sendRepresentation(c, document, as);
  });
}
