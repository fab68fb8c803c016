import { OperatorError } from '@snapdeck/contract';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Step } from '../http/pipeline.ts';
import { patternToRegExp } from '../http/route-pattern.ts';

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

export class DeprecationConfigError extends OperatorError {}

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
export function headersOf(d: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(Date.parse(d.announcedAt) / 1000)}`,
    Sunset: new Date(Date.parse(d.sunsetAt)).toUTCString(),
    Link: `<${d.link}>; rel="sunset"`,
  };
}

/**
 * The step adding the deprecation headers to the responses of deprecated routes (every route
 * runs it after commonHeaders; 404/405 answers too), or null when nothing is deprecated, so
 * routes pay nothing then. The headers go to c.get('headers'), which every response starts from.
 */
export function deprecationHeaders(list: readonly Deprecation[] | undefined): Step | null {
  if (!list || list.length === 0) return null;
  const notices = parseDeprecations(list).map((d) => ({ matcher: patternToRegExp(d.path), method: d.method, headers: headersOf(d) }));
  return (c, next) => {
    const m = c.req.method;
    const path = c.req.path;
    for (const { matcher, method, headers } of notices) {
      if ((method === undefined || m === method || (method === 'GET' && m === 'HEAD')) && matcher.test(path)) Object.assign(c.get('headers'), headers);
    }
    return next();
  };
}
