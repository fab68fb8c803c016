import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { contentTag, type Body, type Encoding } from '@snapdeck/snapshot';
import { negotiateEncoding } from '../http/accept-encoding.ts';
import { CACHE } from '../http/cache-policy.ts';
import { sendAs, sendRepresentation, type SendAs } from '../http/response.ts';
import type { GatewayRoutes } from '../router.ts';

/**
 * GET /docs: an interactive reference of /v1/openapi.json, rendered by Swagger UI
 * (swagger-ui-dist), outside /v1 and not part of the contract (interface.md §9.7). Every asset is
 * served by the gateway itself and the Content-Security-Policy lets the page load nothing from
 * anywhere else: no CDN, no font service, no online validator.
 */
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>snapdeck API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** Swagger UI's options: the document this gateway serves, no online validator badge. */
const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'list',
  displayRequestDuration: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/** Only this gateway: scripts and styles from /docs, requests ("Try it out") to /v1. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes on its elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  as: SendAs;
  load: () => string | Buffer;
  variants?: Record<Encoding, Body>;
}

const JS = 'text/javascript; charset=utf-8';
const ASSETS: Record<string, Asset> = {
  '/docs': { as: sendAs('text/html; charset=utf-8', CACHE.docs), load: () => PAGE },
  '/docs/init.js': { as: sendAs(JS, CACHE.docs), load: () => INIT },
  '/docs/swagger-ui.css': { as: sendAs('text/css; charset=utf-8', CACHE.docs), load: () => readFileSync(join(SWAGGER_UI, 'swagger-ui.css')) },
  '/docs/swagger-ui-bundle.js': { as: sendAs(JS, CACHE.docs), load: () => readFileSync(join(SWAGGER_UI, 'swagger-ui-bundle.js')) },
};

/** Identity, gzip and brotli variants, compressed once, on first use. */
function variantsOf(asset: Asset): Record<Encoding, Body> {
  if (!asset.variants) {
    const bytes = Buffer.from(asset.load());
    const etag = contentTag(bytes);
    asset.variants = {
      identity: { bytes, etag, encoding: 'identity' },
      gzip: { bytes: gzipSync(bytes, { level: 9 }), etag, encoding: 'gzip' },
      br: { bytes: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }), etag, encoding: 'br' },
    };
  }
  return asset.variants;
}

export function docsRoutes({ get }: GatewayRoutes): void {
  for (const [path, asset] of Object.entries(ASSETS)) {
    get(path, (c) => {
      c.get('headers')['Content-Security-Policy'] = CSP;
      return sendRepresentation(c, variantsOf(asset)[negotiateEncoding(c)], asset.as);
    });
  }
}
