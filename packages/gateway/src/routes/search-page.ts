import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { contentTag, type Body, type Encoding } from '@snapdeck/snapshot';
import { negotiateEncoding } from '../http/accept-encoding.ts';
import { CACHE } from '../http/cache-policy.ts';
import { sendAs, sendRepresentation, type SendAs } from '../http/response.ts';
import type { GatewayRoutes } from '../router.ts';
import { SEARCH_APP, SEARCH_CSS, SEARCH_PAGE } from './search-page-assets.ts';
import { searchEngineModule } from './search-page-engine.ts';

/**
 * GET /search: card search in the browser, beside /docs and like it outside /v1 and the contract.
 * The page, its scripts and style come from here, the index from /v1/search; the policy lets the
 * page reach nothing else. The engine's module and worker run from blob: URLs of their verified
 * bytes (search-engine.ts in the contract), never from their URLs, and its WebAssembly is compiled
 * from verified bytes: hence `blob:` for scripts, only `blob:` for workers, 'wasm-unsafe-eval'.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self' blob: 'wasm-unsafe-eval'",
  'worker-src blob:',
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const JS = 'text/javascript; charset=utf-8';
const ASSETS: ReadonlyArray<[string, SendAs, string]> = [
  ['/search', sendAs('text/html; charset=utf-8', CACHE.docs), SEARCH_PAGE],
  ['/search/app.js', sendAs(JS, CACHE.docs), SEARCH_APP],
  ['/search/app.css', sendAs('text/css; charset=utf-8', CACHE.docs), SEARCH_CSS],
];

function variants(text: string): Record<Encoding, Body> {
  const bytes = Buffer.from(text);
  const etag = contentTag(bytes);
  return {
    identity: { bytes, etag, encoding: 'identity' },
    gzip: { bytes: gzipSync(bytes, { level: 9 }), etag, encoding: 'gzip' },
    br: { bytes: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }), etag, encoding: 'br' },
  };
}

export function searchPageRoutes({ get }: GatewayRoutes): void {
  for (const [path, as, text] of ASSETS) {
    const bodies = variants(text);
    get(path, (c) => {
      c.get('headers')['Content-Security-Policy'] = CSP;
      return sendRepresentation(c, bodies[negotiateEncoding(c)], as);
    });
  }
  // Made on first use: most gateways never serve the page.
  let engine: Promise<Record<Encoding, Body>> | undefined;
  const engineAs = sendAs(JS, CACHE.docs);
  get('/search/engine.js', async (c) => {
    const making = (engine ??= searchEngineModule().then(variants));
    making.catch(() => engine === making && (engine = undefined));
    c.get('headers')['Content-Security-Policy'] = CSP;
    return sendRepresentation(c, (await making)[negotiateEncoding(c)], engineAs);
  });
}
