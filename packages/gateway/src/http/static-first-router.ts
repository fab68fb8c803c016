import { METHOD_NAME_ALL, type Params, type Result, type Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';

const NO_PARAMS: Params = Object.freeze(Object.create(null));

/**
 * The gateway's router: routes without parameters looked up by method and path in a Map, every
 * other route matched by Hono's RegExpRouter; a path with a route of its own never reaches the
 * parametric ones.
 *
 * Why not Hono's default (SmartRouter): its RegExpRouter, one regular expression for all routes,
 * refuses a literal segment beside a parameter (`/v1/decks/public` beside `/v1/decks/:deckId`:
 * UnsupportedPathError, by design), so SmartRouter fell back to TrieRouter, which splits the path
 * and builds its handler sets on every request: in the gateway's profile its search and path split
 * were the largest of Hono's parts (bench:hotpath, "one card by id"; docs/benchmarks.md has the
 * figures). Taking the literal routes out of the expression removes its only conflicts, and a
 * literal route wins over a parameter as it did (it was registered first, and answers without
 * calling next).
 */
export class StaticFirstRouter<T> implements Router<T> {
  readonly name = 'StaticFirstRouter';
  /** Hono's second result form: each handler with its parameters (none). */
  private readonly literal = new Map<string, [[T, Params][]]>();
  private readonly parametric = new RegExpRouter<T>();

  add(method: string, path: string, handler: T): void {
    // Hono would run such a route with a literal route's handler; this gateway registers none.
    if (method === METHOD_NAME_ALL) throw new Error(`StaticFirstRouter takes routes of one method only (app.use and app.all are not supported): ${path}`);
    if (/[:*{]/.test(path)) return this.parametric.add(method, path, handler);
    const key = `${method} ${path}`;
    const found = this.literal.get(key);
    if (found) found[0].push([handler, NO_PARAMS]);
    else this.literal.set(key, [[[handler, NO_PARAMS]]]);
  }

  match(method: string, path: string): Result<T> {
    return this.literal.get(`${method} ${path}`) ?? this.parametric.match(method, path);
  }
}
