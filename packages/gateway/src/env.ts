import type { ApiKey, StoreView } from '@snapdeck/store';

/**
 * What middleware leaves on the context for the handlers after it (Hono's typed variables).
 * Read them with c.get(): c.var builds a fresh object of all variables on every access.
 */
export interface GatewayEnv {
  Variables: {
    apiKey: ApiKey;
    /** The store view this request reads keys, tokens and decks from (middleware/store.ts). */
    store: StoreView;
    requestId: string;
    /**
     * Headers for whatever response this request ends with, gathered by middleware (common
     * headers, quota). A plain object rather than c.header(): @hono/node-server writes a plain
     * object straight to the socket, where a Headers instance costs a conversion per response.
     */
    headers: Record<string, string>;
    /** The body http/response.ts answered with, kept (not measured) for the access log's byte count. */
    responseBody: Uint8Array | string | null;
  };
}
