import onExit from 'on-exit-leak-free';
import pino, { type Logger } from 'pino';

/**
 * Characters of log lines gathered before they are written to stdout together: about fifty
 * access-log lines per write (the lines are ASCII: characters are bytes). A write per line cost
 * more than building the line (bench:hotpath, "one card by id").
 */
export const LOG_BUFFER_BYTES = 16_000;

/** A line not written with a full batch is written at the latest this long after it was logged. */
export const LOG_FLUSH_MS = 1000;

const WARN = 40;
const STDOUT = 1;

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * Gathers pino's lines as strings and writes them a batch at a time, synchronously, through
 * sonic-boom (pino's destination, which also retries a pipe's EAGAIN and partial writes).
 *
 * Why gather here rather than with sonic-boom's own minLength: it takes each line through its
 * write path (a Buffer made per line in its Buffer mode, the pending text's UTF-8 length measured
 * again per line in its string mode); strings gathered here and joined once a batch cost 1.2 µs
 * less per line than its Buffer mode and 2.3 µs less than its string mode (a loop of 300,000
 * access-log lines). Why synchronous: one write of 16 kB to a file is about 9 µs, less than an
 * asynchronous write's round trip through libuv's thread pool, and with no write ever in flight,
 * the lines still gathered at exit are written after every earlier one (an asynchronous write in
 * flight at exit would finish after them, or not at all). The cost is pino's default one: a
 * stdout that does not take lines (a stalled pipe) holds the gateway up rather than its memory.
 * In the gateway: 0.87–0.92× the CPU per answer of sonic-boom's Buffer mode batching on small
 * answers, 0.84× on hitsPerPage=100 pages (bench:hotpath's servers, alternating rounds).
 */
class LineBatches {
  /** pino sets lastLevel before each write (the metadata it gives destinations that ask). */
  readonly [pino.symbols.needsMetadataGsym] = true;
  lastLevel = 0;
  private lines: string[] = [];
  private length = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly destination: SonicBoom) {}

  write(line: string): void {
    this.lines.push(line);
    this.length += line.length;
    // A warning or an error goes out at once, with the lines before it.
    if (this.length >= LOG_BUFFER_BYTES || this.lastLevel >= WARN) this.flushSync();
    else this.timer ??= setTimeout(this.flushLater, LOG_FLUSH_MS).unref();
  }

  /** Writes every gathered line. */
  flushSync(): void {
    if (this.length === 0) return;
    const batch = this.lines.join('');
    this.lines = [];
    this.length = 0;
    this.destination.write(batch);
  }

  flush(done: (error?: Error) => void): void {
    this.flushSync();
    done();
  }

  private readonly flushLater = (): void => {
    this.timer = undefined;
    this.flushSync();
  };
}

/**
 * The gateway's log (`snapdeck serve`): pino's JSON lines on stdout, at LOG_LEVEL (default info),
 * written in batches of LOG_BUFFER_BYTES, each line within LOG_FLUSH_MS. A warning or an error is
 * written at once, with whatever was gathered before it.
 *
 * Nothing is lost on a normal exit, SIGTERM or SIGINT included, or on an uncaught exception: a
 * shutdown writes what was gathered (shutdown.ts), and what is left when the process exits is
 * written from an exit hook. A process killed outright (SIGKILL, the OOM killer, a native crash)
 * loses the lines not written yet: fewer than LOG_BUFFER_BYTES of them, or those of the last
 * LOG_FLUSH_MS when fewer came.
 */
export function createLog(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  const batches = new LineBatches(pino.destination({ dest: STDOUT, sync: true }));
  // on-exit-leak-free (pino's own exit hook) holds the batches weakly: a log dropped is not kept alive.
  onExit.register(batches, (gathered) => gathered.flushSync());
  return pino({ level }, batches as unknown as pino.DestinationStream);
}

/** Writes what the log has gathered; resolves once it is written. */
export function flushLog(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
