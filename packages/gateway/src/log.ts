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

/**
 * Access-log lines are formatted this many at a time (logLater): a line costs several times in
 * the gateway's profile what it costs in a loop (pino's 0.8 µs, access-log.ts accessLine's 0.63),
 * its code and data being cold after the answer's write; formatted 64 together they stay warm.
 * Measured when pino formatted them: with the batched writes below and the
 * router's change (http/static-first-router.ts), this took a card from 2.3× to about 1.9–2.1× bare
 * node:http's CPU per answer (docs/benchmarks.md, the hot path: each revision measured in this tree).
 */
export const LINES_FORMATTED_TOGETHER = 64;

const INFO = 30;
const WARN = 40;
const STDOUT = 1;
const BUFFER = Symbol('the log buffer of a logger made by createLog');

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * Writes the line `logger.info(fields, msg)` would write at `time`, byte for byte, faster than
 * pino's generic formatting for the one kind of line it knows (the access log's: access-log.ts).
 * `bindings` is the logger's own part of every line (`,"pid":…,"hostname":…`).
 */
export type LineFormat<F extends object> = (fields: F, time: number, bindings: string) => string;

/** An info line handed over by logLater, formatted later with the time it was logged at. */
interface LaterLine {
  logger: Logger;
  fields: object;
  msg: string;
  time: number;
  format: LineFormat<object> | undefined;
}

/**
 * The lines of one log on their way to stdout: info lines handed over by logLater, kept to be
 * formatted together, and the formatted lines (pino's destination: `write`), gathered as strings
 * and written a batch at a time, synchronously, through sonic-boom (pino's destination, which
 * also retries a pipe's EAGAIN and partial writes). Lines come out in the order they were logged:
 * any line logged directly first has the kept ones formatted (createLog's logMethod hook).
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
class LogBuffer {
  /** pino sets lastLevel before each write (the metadata it gives destinations that ask). */
  readonly [pino.symbols.needsMetadataGsym] = true;
  lastLevel = 0;
  /** While kept lines are formatted: the time the one being formatted was logged at (pino's timestamp). */
  formattingTime: number | undefined;
  private later: LaterLine[] = [];
  private lines: string[] = [];
  private length = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly destination: SonicBoom) {}

  keep(line: LaterLine): void {
    this.later.push(line);
    if (this.later.length >= LINES_FORMATTED_TOGETHER) this.format();
    else this.flushWithinTime();
  }

  /** Formats the kept lines, in order, each with the time it was logged at. */
  format(): void {
    if (this.later.length === 0 || this.formattingTime !== undefined) return;
    const later = this.later;
    this.later = [];
    try {
      for (const line of later) {
        if (line.format === undefined) {
          this.formattingTime = line.time;
          line.logger.info(line.fields, line.msg);
        } else if (line.logger.isLevelEnabled('info')) {
          this.lastLevel = INFO;
          this.write(line.format(line.fields, line.time, (line.logger as Logger & { [pino.symbols.chindingsSym]: string })[pino.symbols.chindingsSym]));
        }
      }
    } finally {
      this.formattingTime = undefined;
    }
  }

  /** pino's: one formatted line. */
  write(line: string): void {
    this.lines.push(line);
    this.length += line.length;
    // A warning or an error goes out at once, with the lines before it.
    if (this.length >= LOG_BUFFER_BYTES || this.lastLevel >= WARN) this.writeOut();
    else this.flushWithinTime();
  }

  /** Formats the kept lines and writes every gathered one. */
  flushSync(): void {
    this.format();
    this.writeOut();
  }

  flush(done: (error?: Error) => void): void {
    this.flushSync();
    done();
  }

  private writeOut(): void {
    if (this.length === 0) return;
    const batch = this.lines.join('');
    this.lines = [];
    this.length = 0;
    this.destination.write(batch);
  }

  /** Everything gathered by now is written within LOG_FLUSH_MS (one timer for kept and formatted lines). */
  private flushWithinTime(): void {
    this.timer ??= setTimeout(this.flushLater, LOG_FLUSH_MS).unref();
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
 * loses the lines not written yet: fewer than LOG_BUFFER_BYTES of them and LINES_FORMATTED_TOGETHER
 * access-log lines kept, or those of the last LOG_FLUSH_MS when fewer came.
 */
export function createLog(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  const buffer = new LogBuffer(pino.destination({ dest: STDOUT, sync: true }));
  // on-exit-leak-free (pino's own exit hook) holds the buffer weakly: a log dropped is not kept alive.
  onExit.register(buffer, (kept) => kept.flushSync());
  const log = pino(
    {
      level,
      timestamp: () => `,"time":${buffer.formattingTime ?? Date.now()}`,
      hooks: {
        logMethod(args, method) {
          // Lines logged directly come after the kept ones (format does nothing while formatting them).
          buffer.format();
          method.apply(this, args);
        },
      },
    },
    buffer as unknown as pino.DestinationStream,
  );
  // Children (log.child) see it too: pino makes them with the parent as prototype.
  Object.defineProperty(log, BUFFER, { value: buffer });
  return log;
}

/**
 * `log.info(fields, msg)`, formatted later when the log is createLog's (see LINES_FORMATTED_TOGETHER),
 * with the time of this call, by `format` when given (it must write what pino would); at once, by
 * pino, with any other logger. `fields` must not change afterwards. For the lines of the hot path
 * only: the access log.
 */
export function logLater<F extends object>(log: Logger, fields: F, msg: string, format?: LineFormat<F>): void {
  const buffer = (log as Logger & { [BUFFER]?: LogBuffer })[BUFFER];
  if (buffer) buffer.keep({ logger: log, fields, msg, time: Date.now(), format: format as LineFormat<object> | undefined });
  else log.info(fields as object, msg);
}

/** Writes what the log has gathered; resolves once it is written. */
export function flushLog(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
