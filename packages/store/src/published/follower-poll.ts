/**
 * After a run that failed to reach storage, the next comes this soon, at most this many times in a
 * row: 4 s of quick looks, most of the 5 s a revocation may take (8, 2 s, let one trial in a CI
 * run take 5.05 s with 1 request in 3 failing and no S3 retries). An outage costs a gateway 16
 * extra reads, then the poll interval again.
 */
export const QUICK_RETRY_MS = 250;
export const QUICK_RETRIES = 16;

/**
 * The follower's poll loop: `once` every `pollMs`, never two at once (a refresh asked for while
 * one runs joins it), the next one scheduled only when the last has finished, so a slow storage
 * never piles up requests. A run that could not reach storage (`once` resolves false) is followed
 * by quick ones (every 250 ms, up to 16 in a row, then the poll interval again): a hiccup costs a
 * fraction of a second, not a poll. The S3 client's own retries cannot be counted on for that:
 * its retry quota is spent by an outage and refills one token per success, so right after one a
 * failed request is not retried at all (measured: 1 request in 3 failing after a series of 2 s
 * outages, revoke → 401 took up to 8 s with poll-interval retries only).
 */
export class PollLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failures = 0;

  constructor(private readonly once: () => Promise<boolean>, private readonly pollMs: number) {}

  /** Runs now, or joins the run under way. */
  run(): Promise<void> {
    return (this.running ??= this.once()
      .then((reached) => {
        this.failures = reached ? 0 : this.failures + 1;
      })
      .finally(() => (this.running = null)));
  }

  /** The run under way, if any (nothing new is started). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /**
   * The first run, then `afterFirst`, waited for at most `waitMs` (a store that hangs must not
   * keep the gateway from listening); the loop goes on from there.
   */
  async start(waitMs: number, afterFirst: () => Promise<void>): Promise<void> {
    const first = this.run().then(afterFirst).catch(() => {});
    void first.finally(() => this.schedule());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([first, new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    const quick = this.failures > 0 && this.failures <= QUICK_RETRIES;
    this.timer = setTimeout(() => {
      void this.run().finally(() => this.schedule());
    }, quick ? Math.min(QUICK_RETRY_MS, this.pollMs) : this.pollMs);
    this.timer.unref();
  }

  /** No more runs; resolves once the one under way (if any) has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
