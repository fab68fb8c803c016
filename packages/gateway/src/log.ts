import pino, { type Logger } from 'pino';

/**
 * Bytes of log lines gathered before they are written to stdout together: about fifty
 * access-log lines per write. Each write is a round trip through libuv's thread pool (a thread
 * woken, the write, the main thread woken for its callback), which cost more than building the
 * line when lines went out one or two at a time (bench:hotpath, "one card by id").
 */
export const LOG_BUFFER_BYTES = 16_000;

/** Lines gathered but not LOG_BUFFER_BYTES yet are written at the latest this long after. */
export const LOG_FLUSH_MS = 1000;

const WARN = 40;

/**
 * The gateway's log (`snapdeck serve`): pino's JSON lines on stdout, at LOG_LEVEL (default info),
 * written asynchronously in batches of LOG_BUFFER_BYTES, and at least every LOG_FLUSH_MS. A
 * warning or an error is written at once, with whatever was gathered before it.
 *
 * The batching is sonic-boom's (pino's destination, minLength) in its Buffer mode: each line is
 * handed over as a Buffer and a batch is joined once, when written. In its default string mode
 * sonic-boom appends each line to the pending string and measures that string's UTF-8 length
 * again, so a line costs more the more is pending: with a 4 KiB batch, 7 % of the gateway's CPU on
 * one card (bench:hotpath "one card by id", perf), more than batching saved.
 *
 * Nothing is lost on a normal exit, SIGTERM or SIGINT included, or on an uncaught exception: a
 * shutdown writes what was gathered (shutdown.ts), and pino writes what is left synchronously
 * when the process exits (its exit hook for an asynchronous destination). A process killed
 * outright (SIGKILL, the OOM killer, a native crash) loses the lines not written yet: fewer than
 * LOG_BUFFER_BYTES of them (or those of the last LOG_FLUSH_MS, when fewer came), plus those
 * gathered while one write was in flight.
 */
export function createLog(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS, contentMode: 'buffer' });
  const stream = {
    // pino sets lastLevel before each write (the metadata it gives destinations that ask).
    [pino.symbols.needsMetadataGsym]: true as const,
    lastLevel: 0,
    write(line: string): void {
      // Buffer mode takes Buffers; its type still says string.
      destination.write(Buffer.from(line) as unknown as string);
      if (this.lastLevel >= WARN) destination.flush();
    },
    flush: (cb: (error?: Error) => void) => destination.flush(cb),
  };
  return pino({ level }, stream as unknown as pino.DestinationStream);
}

/** Writes what the log has gathered; resolves once it is written (at once for a log without a buffer). */
export function flushLog(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
