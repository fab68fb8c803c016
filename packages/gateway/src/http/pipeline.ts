import type { Context, Handler, MiddlewareHandler } from 'hono';
import { andThen, type MaybePromise } from '@snapdeck/snapshot';
import type { GatewayEnv } from '../env.ts';

/**
 * One layer of a route: Hono's middleware shape, `(c, next)`, except that it may answer (or call
 * `next()` and hand back what it returns) synchronously. Return a Response to end the request,
 * or `next()`'s result to go on.
 */
export type Step = (c: Context<GatewayEnv>, next: () => MaybePromise<Response>) => MaybePromise<Response>;

/** What to answer when a step throws (the app's 500). */
export type ErrorResponder = (error: unknown, c: Context<GatewayEnv>) => Response;

/**
 * Runs `steps` as a single Hono handler. Why not app.use() and Hono's compose: compose awaits
 * every layer, so each request pays an async frame and a microtask turn per middleware even when
 * every layer answers from memory, and Hono takes its synchronous path only for a route with
 * exactly one handler. Here a step that returns a value goes on at once; only a step that really
 * waits (a storage read, Redis, a request body) makes the rest of the request asynchronous
 * (bench:hotpath, every row: docs/benchmarks.md).
 *
 * A step that throws, or whose Promise rejects, is answered by `onError` where it failed, so the
 * steps around it (the access log) still see a response, as with Hono's compose.
 */
export function pipeline(steps: readonly Step[], onError: ErrorResponder): Handler<GatewayEnv> {
  return (c) => {
    const run = (i: number): MaybePromise<Response> => {
      const step = steps[i];
      if (!step) throw new Error(`the last step of ${c.req.method} ${c.req.path} called next()`);
      let result: MaybePromise<Response>;
      try {
        result = step(c, () => run(i + 1));
      } catch (error) {
        return onError(error, c);
      }
      return result instanceof Promise ? result.catch((error: unknown) => onError(error, c)) : result;
    };
    return run(0);
  };
}

/** For steps that do something with the response on its way out (the access log). */
export function afterResponse(response: MaybePromise<Response>, f: (response: Response) => void): MaybePromise<Response> {
  return andThen(response, (ready) => {
    f(ready);
    return ready;
  });
}

/**
 * A Hono middleware (such as hono/body-limit) as a step: its `await next()` waits for the rest
 * of the route, and when it returns nothing, the rest of the route's response is the answer.
 */
export function fromMiddleware(middleware: MiddlewareHandler<GatewayEnv>): Step {
  return (c, next) => {
    let produced: MaybePromise<Response> | undefined;
    const result = middleware(c, async () => {
      produced = next();
      await produced;
    });
    return andThen(result, (response) => response ?? produced ?? Promise.reject(new Error('the middleware neither answered nor called next()')));
  };
}
