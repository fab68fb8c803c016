/**
 * A value that is often ready now and sometimes has to be loaded. The gateway answers most
 * requests from memory; returning the value itself (not a resolved Promise) lets those requests
 * finish synchronously, without a microtask turn per layer. Only what must wait, waits.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `f(value)` now when the value is ready, after it resolves otherwise. */
export function andThen<T, R>(value: MaybePromise<T>, f: (ready: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}
