import type { Context } from 'hono';
import { contentTag } from '@snapdeck/snapshot';
import type { GatewayEnv } from '../env.ts';
import { sendAs, sendRepresentation } from './send.ts';

/**
 * A dynamic JSON or text body with a strong ETag computed from its bytes, so even responses
 * rendered per request answer If-None-Match with 304.
 */
export function sendRendered(
  c: Context<GatewayEnv>,
  body: string,
  options: { contentType?: string; cacheControl: string; vary?: string[] },
): Response {
  const bytes = Buffer.from(body);
  return sendRepresentation(c, { bytes, etag: contentTag(bytes), encoding: 'identity' }, sendAs(options.contentType ?? 'application/json', options.cacheControl, options.vary));
}
