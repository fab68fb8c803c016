import type { HttpBindings } from '@hono/node-server';
import type { Step } from './pipeline.ts';
import { sendError } from './response.ts';

/**
 * What makes a path not in normal form (decisions.md "Errors and precedence"): a `.` or `..`
 * segment, plain or percent-encoded in either case (`%2e`, `.%2E`, `%2e%2e` …), an encoded `/`
 * (`%2F`), or an empty segment (`//`; a trailing `/` is not one: `/v1/games/` stays a 404).
 *
 * Why refuse instead of resolving: @hono/node-server builds the request's URL with WHATWG URL
 * parsing, which resolves `/x/../metrics` and `/%2e/metrics` to `/metrics` before a route is
 * chosen, while a cache or proxy in front matches the path as it was sent. A rule written there
 * for `/metrics` or the keyed routes would not see those spellings. `//` is refused too, as the
 * shipped VCL refuses it, so that a path has one spelling on both sides.
 */
const NOT_NORMAL = /\/(?:\.|%2e){1,2}(?:\/|$)|%2f|\/\//i;
/** `scheme://authority` of an absolute-form target (`GET http://host/path`), which Node passes on as sent. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** The path of a request target as the client sent it: no scheme and authority, no query or fragment. */
export function targetPath(target: string): string {
  const start = target.startsWith('/') ? 0 : (ABSOLUTE_FORM.exec(target)?.[0].length ?? 0);
  let end = target.length;
  for (const stop of ['?', '#']) {
    const at = target.indexOf(stop, start);
    if (at !== -1 && at < end) end = at;
  }
  return target.slice(start, end);
}

export function isNormalPath(path: string): boolean {
  return !NOT_NORMAL.test(path);
}

/**
 * 400 `Invalid request path` for a target not in normal form, before any other check (401, 404,
 * 405, 429 and preflights come after it): read from the request line as received
 * (`incoming.url`), since the URL Hono routes on has already been resolved.
 */
export const requireNormalPath: Step = (c, next) => {
  const target = (c.env as Partial<HttpBindings> | undefined)?.incoming?.url ?? c.req.url;
  return isNormalPath(targetPath(target)) ? next() : sendError(c, 'invalidPath');
};
