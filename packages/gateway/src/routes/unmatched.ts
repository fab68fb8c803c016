import type { RouterRoute } from 'hono/types';
import type { Step } from '../http/pipeline.ts';
import { patternToRegExp } from '../http/route-pattern.ts';
import { sendError } from '../http/response.ts';

/**
 * What no route matched: 405 `Method not allowed` with an Allow header when the path has routes
 * for other methods, else 404 `Not found` (decisions.md "Errors and precedence").
 *
 * Hand-written rather than hono/method-not-allowed (present in hono 4.13), for two reasons:
 * - Its Allow lists every method of every pattern matching the path, so DELETE
 *   /v1/decks/details would allow GET (from /v1/decks/:deckId); here a concrete route shadows a
 *   parameterised one, as in the router, and the answer is `Allow: POST, OPTIONS`
 *   (test/decks-details.test.ts). Allow also names OPTIONS, which every path answers.
 * - It is an app.use() middleware, waiting for every request's response to check for a 404:
 *   every route would then go through Hono's compose, the cost http/pipeline.ts avoids.
 */
export function unmatchedRoute(registered: readonly Pick<RouterRoute, 'method' | 'path'>[]): Step {
  const known = registered.map((route) => ({ method: route.method, matcher: patternToRegExp(route.path), concrete: !route.path.includes(':') }));
  return (c) => {
    const path = c.req.path;
    const matching = known.filter((route) => route.matcher.test(path));
    const concrete = matching.filter((route) => route.concrete);
    const allowed = [...new Set((concrete.length > 0 ? concrete : matching).map((route) => route.method))];
    if (allowed.length === 0) return sendError(c, 'notFound');
    if (allowed.includes('GET')) allowed.push('HEAD');
    return sendError(c, 'methodNotAllowed', undefined, { Allow: [...allowed, 'OPTIONS'].join(', ') });
  };
}
