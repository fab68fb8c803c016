/** The part of on-exit-leak-free (pino's exit hook, untyped) the gateway's log uses. */
declare module 'on-exit-leak-free' {
  /** Calls `fn(obj, 'exit')` when the process exits, for as long as `obj` is alive (held weakly). */
  export function register<T extends object>(obj: T, fn: (obj: T, event: 'exit') => void): void;
  const onExit: { register: typeof register };
  export default onExit;
}
