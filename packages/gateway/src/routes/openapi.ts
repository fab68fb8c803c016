import { buildOpenApiDocument } from '@snapdeck/contract';
import { contentTag, type Body } from '@snapdeck/snapshot';
import { CACHE } from '../http/cache-policy.ts';
import { patternToRegExp } from '../http/route-pattern.ts';
import { sendAs, sendRepresentation } from '../http/response.ts';
import { parseDeprecations } from '../middleware/deprecation.ts';
import type { GatewayRoutes } from '../router.ts';

/**
 * GET /v1/openapi.json: public, generated once from the contract's zod schemas, with the
 * operations this gateway's operator deprecated (--deprecations) marked `deprecated: true`.
 */
export function openApiRoutes({ get, deprecations }: GatewayRoutes): void {
  const notices = parseDeprecations(deprecations ?? []).map((d) => ({ method: d.method, matcher: patternToRegExp(d.path) }));
  // A deprecation pattern matches a route pattern as it would match one of its paths.
  const isDeprecated = (method: string, route: string) => notices.some((d) => (d.method === undefined || d.method === method) && d.matcher.test(route));
  let document: Body | undefined;
  const as = sendAs('application/json', CACHE.openapi);
  get('/v1/openapi.json', (c) => {
    if (!document) {
      const bytes = Buffer.from(JSON.stringify(buildOpenApiDocument({ isDeprecated })));
      document = { bytes, etag: contentTag(bytes), encoding: 'identity' };
    }
    return sendRepresentation(c, document, as);
  });
}
