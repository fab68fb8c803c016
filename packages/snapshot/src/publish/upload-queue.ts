import pLimit, { type LimitFunction } from 'p-limit';

/**
 * Uploads overlapping the work that produces them, at most `inFlight` at a time (p-limit runs
 * them). `add` returns once its upload has started, so the producer waits while every slot is
 * taken: with segments of 16 MiB, that is what bounds the memory of a build. The first failure is
 * kept and thrown to the producer (at its next `add`) and by `drain`.
 */
export class UploadQueue {
  private readonly limit: LimitFunction;
  private readonly running = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;

  constructor(inFlight: number) {
    this.limit = pLimit(inFlight);
  }

  async add(upload: () => Promise<void>): Promise<void> {
    if (this.failure) throw this.failure.error;
    let started!: () => void;
    const start = new Promise<void>((resolve) => (started = resolve));
    const task: Promise<void> = this.limit(() => {
      started();
      return upload();
    })
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.running.delete(task));
    this.running.add(task);
    await start;
  }

  /** Waits for every upload; throws the first failure. */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
    if (this.failure) throw this.failure.error;
  }
}
