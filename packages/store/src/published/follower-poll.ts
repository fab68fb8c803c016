/**
 * The follower's poll loop: `once` every `pollMs`, never two at once (a refresh asked for while
 * one runs joins it), the next one scheduled only when the last has finished, so a slow storage
 * never piles up requests.
 */
export class PollLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly once: () => Promise<void>, private readonly pollMs: number) {}

  /** Runs now, or joins the run under way. */
  run(): Promise<void> {
    return (this.running ??= this.once().finally(() => (this.running = null)));
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
    this.timer = setTimeout(() => {
      void this.run().finally(() => this.schedule());
    }, this.pollMs);
    this.timer.unref();
  }

  /** No more runs; resolves once the one under way (if any) has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
