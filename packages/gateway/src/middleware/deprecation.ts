import { readFile } from 'node:fs/promises';
import type { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { z } from 'zod';
import type { GatewayEnv } from '../env.ts';

/**
 * The operator's deprecation notices (decisions.md "Errors and precedence"). Every response of a
 * deprecated route, errors included, carries:
 *   Deprecation: @<announcedAt, epoch seconds>     (RFC 9745)
 *   Sunset: <sunsetAt, HTTP date>                   (RFC 8594)
 *   Link: <link>; rel="sunset"                      (RFC 8594)
 */
export interface Deprecation {
  /** GET, POST, ...; absent: every method of the path (405 answers included). */
  method?: string;
  /** A Hono route pattern, as the route is registered: '/v1/games', '/v1/games/:slug/cards'. */
  path: string;
  /** When the deprecation was announced: an ISO 8601 date or date-time. */
  announcedAt: string;
  /** When the route goes away: an ISO 8601 date or date-time. */
  sunsetAt: string;
  /** A page describing the deprecation and what to use instead. */
  link: string;
}

const isoDate = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: 'must be an ISO 8601 date (2026-01-31) or date-time (2026-01-31T00:00:00Z)',
});

const deprecationSchema = z
  .strictObject({
    method: z
      .string()
      .regex(/^[A-Za-z]+$/, 'must be an HTTP method such as GET')
      .transform((m) => m.toUpperCase())
      .optional(),
    path: z.string().regex(/^\/[^\s?#]*$/, "must be a route pattern starting with '/', such as /v1/games"),
    announcedAt: isoDate,
    sunsetAt: isoDate,
    link: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  })
  .refine((d) => Date.parse(d.sunsetAt) >= Date.parse(d.announcedAt), { message: 'sunsetAt must not be before announcedAt', path: ['sunsetAt'] });

export const deprecationsSchema = z.array(deprecationSchema);

export class DeprecationConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeprecationConfigError';
  }
}

/** Validates a deprecation list; the error names every problem with its place in the list. */
export function parseDeprecations(value: unknown, source = 'deprecations'): Deprecation[] {
  const result = deprecationsSchema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const at = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('');
    return `  ${at || '(top level)'}: ${issue.message}`;
  });
  throw new DeprecationConfigError(`${source} is not a valid deprecation list (a JSON array of {method?, path, announcedAt, sunsetAt, link}):\n${problems.join('\n')}`);
}

/** Reads and validates a deprecations JSON file (`snapdeck serve --deprecations FILE`). */
export async function loadDeprecations(file: string): Promise<Deprecation[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new DeprecationConfigError(`cannot read the deprecations file ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new DeprecationConfigError(`the deprecations file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return parseDeprecations(value, `the deprecations file ${file}`);
}

/** The three headers of one deprecation, computed once. */
export function deprecationHeaders(d: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(Date.parse(d.announcedAt) / 1000)}`,
    Sunset: new Date(Date.parse(d.sunsetAt)).toUTCString(),
    Link: `<${d.link}>; rel="sunset"`,
  };
}

/**
 * Registers one middleware per deprecated path (register after commonHeaders, before the
 * routes). The router only runs it for its path, so other routes pay nothing; it adds the headers
 * to c.var.headers, which every response of the request starts from. Registered for every method
 * (app.use) and filtered inside, so it never makes a path look like a known route to the 405 check.
 */
export function registerDeprecations(app: Hono<GatewayEnv>, list: readonly Deprecation[] | undefined): void {
  if (!list || list.length === 0) return;
  for (const d of parseDeprecations(list)) {
    const headers = deprecationHeaders(d);
    const method = d.method;
    app.use(
      d.path,
      createMiddleware<GatewayEnv>(async (c, next) => {
        const m = c.req.method;
        if (method === undefined || m === method || (method === 'GET' && m === 'HEAD')) Object.assign(c.get('headers'), headers);
        await next();
      }),
    );
  }
}
