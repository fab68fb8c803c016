import type { ApiKey } from './keys/store.ts';

/** What middleware leaves on the context for the handlers after it (Hono's typed variables). */
export interface GatewayEnv {
  Variables: {
    apiKey: ApiKey;
    requestId: string;
  };
}
