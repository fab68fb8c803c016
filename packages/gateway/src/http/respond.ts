import type { Context } from 'hono';
import type { GatewayEnv } from '../env.ts';

/** A response carrying the headers middleware gathered for this request, plus `headers`. */
export function respond(c: Context<GatewayEnv>, status: number, body: Uint8Array | string | null, headers: Record<string, string>): Response {
  c.set('responseBody', body);
  return new Response(body as ConstructorParameters<typeof Response>[0], { status, headers: { ...c.get('headers'), ...headers } });
}
