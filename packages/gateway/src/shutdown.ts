import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { OPERATOR_DEFAULTS } from '@snapdeck/contract';
import { flushLog } from './log.ts';

/**
 * The gateway's way out on SIGTERM (decisions.md "Running it"): not ready at once (/readyz 503),
 * still serving for the drain so that the balancer's probes move traffic away, then no new
 * connections, in-flight requests finished, and the process free to exit within the shutdown
 * timeout whatever storage or the clients do.
 */
export class ShutdownState {
  /** Set once the shutdown has begun: /readyz answers 503 from then on. */
  draining = false;
}

export interface ShutdownOptions {
  /** Requests still served after readiness is off (default OPERATOR_DEFAULTS.drainMs). */
  drainMs?: number;
  /** The whole shutdown at most this long (default OPERATOR_DEFAULTS.shutdownTimeoutSeconds). */
  timeoutMs?: number;
}

export interface ShutdownPhases {
  /** Stops accepting; resolves once every in-flight request is answered and its connection closed. */
  stopServing(): Promise<void>;
  /** Closes what the gateway holds (quota, storage clients, the store and its presence record). */
  release(): Promise<void>;
}

export interface ShutdownOutcome {
  /** false: the timeout ran out with requests in flight, and their connections were closed. */
  requestsFinished: boolean;
  /**
   * false: closing what the gateway holds did not finish within OPERATOR_DEFAULTS.shutdownReleaseMs
   * or the timeout (a storage call that never answers, say); no request is affected, and the
   * process's exit releases the rest.
   */
  released: boolean;
  elapsedMs: number;
}

/** Runs the shutdown: the drain, then the phases in order, all within the timeout. */
export async function shutDown(state: ShutdownState, server: Server, phases: ShutdownPhases, log: Logger, options: ShutdownOptions = {}): Promise<ShutdownOutcome> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? OPERATOR_DEFAULTS.shutdownTimeoutSeconds * 1000;
  const drainMs = Math.min(options.drainMs ?? OPERATOR_DEFAULTS.drainMs, timeoutMs);
  state.draining = true;
  log.info({ drainMs, timeoutMs }, 'shutting down: not ready, draining');
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const within = <T>(work: Promise<T>, bound: Promise<'timeout'> = deadline) => Promise.race([work, bound]);
  try {
    // The lines gathered so far go out now (log.ts), not only when the process exits: whoever reads
    // stdout has them before the process is gone.
    await within(Promise.all([flushLog(log), new Promise((resolve) => setTimeout(resolve, drainMs))]));
    log.info('shutting down: drain over, no new connections, finishing in-flight requests');
    if ((await within(phases.stopServing().then(() => 'done' as const))) === 'timeout') {
      server.closeAllConnections();
      log.warn({ timeoutMs }, 'shutting down: the shutdown timeout ran out with requests in flight; their connections were closed');
      return { requestsFinished: false, released: false, elapsedMs: Date.now() - started };
    }
    let releaseTimer: NodeJS.Timeout | undefined;
    const releaseBound = new Promise<'timeout'>((resolve) => (releaseTimer = setTimeout(() => resolve('timeout'), OPERATOR_DEFAULTS.shutdownReleaseMs)));
    const released = await within(phases.release().then(() => 'done' as const), Promise.race([deadline, releaseBound]));
    clearTimeout(releaseTimer);
    if (released === 'timeout') {
      log.warn({ releaseMs: OPERATOR_DEFAULTS.shutdownReleaseMs }, 'shutting down: every request was answered, but closing the storage and store clients did not finish (storage gave no answer); exiting anyway');
      return { requestsFinished: true, released: false, elapsedMs: Date.now() - started };
    }
    return { requestsFinished: true, released: true, elapsedMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}
