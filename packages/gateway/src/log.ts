import { hostname } from 'node:os';
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
 * Lines handed to a line sink (lineSink: the access log's) are formatted this many at a time: a
 * line costs several times in the gateway's profile what it costs in a loop, its code and data
 * being cold after the answer's write; formatted together they stay warm (bench:hotpath, "one card
 * by id"; docs/benchmarks.md, the hot path).
 */
export const LINES_FORMATTED_TOGETHER = 64;

const WARN = 40;
const STDOUT = 1;

type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * Writes one whole line (`\n` included) for `fields`, logged at `time` (epoch ms). `bindings` is
 * the log's own part of every line as pino writes it after the time (`,"pid":…,"hostname":…`).
 */
export type LineFormat<F> = (fields: F, time: number, bindings: string) => string;

/** Takes the fields of one line, to be formatted later with the time of this call. `fields` must not change afterwards. */
export type LineSink<F> = (fields: F) => void;

/** The base every createLog line carries (pino's default one, given explicitly so that its text is known). */
interface LogBase {
  pid: number;
  hostname: string;
}

/** The text pino writes for `base` after the time of every line (each member as its JSON). */
export function bindingsOf(base: LogBase): string {
  return `,"pid":${JSON.stringify(base.pid)},"hostname":${JSON.stringify(base.hostname)}`;
}

/** A line handed to a sink: formatted later, with the time it was handed over at. */
interface KeptLine {
  fields: unknown;
  time: number;
  format: LineFormat<unknown>;
}

/**
 * The lines of one log on their way to stdout: pino's formatted lines (this is its destination:
 * `write`) and the lines handed to sinks, kept to be formatted together, gathered as strings and
 * written a batch at a time, synchronously, through sonic-boom (pino's destination, which also
 * retries a pipe's EAGAIN and partial writes). Lines come out in the order they were logged: a
 * line from pino first has the kept ones formatted.
 *
 * Why gather here rather than with sonic-boom's own minLength: it takes each line through its
 * write path (a Buffer made per line in its Buffer mode, the pending text's UTF-8 length measured
 * again per line in its string mode); strings gathered here and joined once a batch cost less per
 * line than either mode. Why synchronous: one write of 16 kB to a file costs less than an
 * asynchronous write's round trip through libuv's thread pool, and with no write ever in flight,
 * the lines still gathered at exit are written after every earlier one (an asynchronous write in
 * flight at exit would finish after them, or not at all). The cost is pino's default one: a
 * stdout that does not take lines (a stalled pipe) holds the gateway up rather than its memory.
 * Figures: docs/benchmarks.md, the hot path.
 */
class LogBuffer {
  private kept: KeptLine[] = [];
  private lines: string[] = [];
  private length = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly destination: SonicBoom,
    private readonly bindings: string,
  ) {}

  keep(line: KeptLine): void {
    this.kept.push(line);
    if (this.kept.length >= LINES_FORMATTED_TOGETHER) this.format();
    else this.flushWithinTime();
  }

  /** pino's: one line it formatted, written after every line kept before it. */
  write(line: string): void {
    this.format();
    this.gather(line);
  }

  /** Formats the kept lines, in order, each with the time it was handed over at. */
  private format(): void {
    if (this.kept.length === 0) return;
    const kept = this.kept;
    this.kept = [];
    for (const line of kept) this.gather(line.format(line.fields, line.time, this.bindings));
  }

  private gather(line: string): void {
    this.lines.push(line);
    this.length += line.length;
    if (this.length >= LOG_BUFFER_BYTES) this.writeOut();
    else this.flushWithinTime();
  }

  /** Formats the kept lines and writes every gathered one. */
  flushSync(): void {
    this.format();
    this.writeOut();
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

/** The buffer of each log made by createLog (lineSink, flushLog). */
const buffers = new WeakMap<Logger, LogBuffer>();

/**
 * The gateway's log (`snapdeck serve`): pino's JSON lines on stdout, at LOG_LEVEL (default info),
 * written in batches of LOG_BUFFER_BYTES, each line within LOG_FLUSH_MS. A warning or an error is
 * written at once, with whatever was gathered before it.
 *
 * Nothing is lost on a normal exit, SIGTERM or SIGINT included, or on an uncaught exception: a
 * shutdown writes what was gathered (shutdown.ts), and what is left when the process exits is
 * written from an exit hook. A process killed outright (SIGKILL, the OOM killer, a native crash)
 * loses the lines not written yet: fewer than LOG_BUFFER_BYTES of them and LINES_FORMATTED_TOGETHER
 * lines kept by a sink, or those of the last LOG_FLUSH_MS when fewer came.
 */
export function createLog(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  const base: LogBase = { pid: process.pid, hostname: hostname() };
  const buffer = new LogBuffer(pino.destination({ dest: STDOUT, sync: true }), bindingsOf(base));
  // on-exit-leak-free (pino's own exit hook) holds the buffer weakly: a log dropped is not kept alive.
  onExit.register(buffer, (kept) => kept.flushSync());
  const destination: pino.DestinationStream = { write: (line) => buffer.write(line) };
  const log = pino(
    {
      level,
      base,
      hooks: {
        logMethod(args, method, lineLevel) {
          method.apply(this, args);
          if (lineLevel >= WARN) buffer.flushSync();
        },
      },
    },
    destination,
  );
  buffers.set(log, buffer);
  return log;
}

/**
 * Where info lines of one kind go when `log` is createLog's (not a child of it): their fields are
 * kept and formatted by `format` LINES_FORMATTED_TOGETHER at a time, with the time each was handed
 * over at, then written with the log's other lines, in order. Undefined for any other logger:
 * log through it. The caller checks `log.isLevelEnabled('info')`. For the hot path's lines only
 * (the access log: middleware/access-log.ts).
 */
export function lineSink<F>(log: Logger, format: LineFormat<F>): LineSink<F> | undefined {
  const buffer = buffers.get(log);
  if (buffer === undefined) return undefined;
  return (fields) => buffer.keep({ fields, time: Date.now(), format: format as LineFormat<unknown> });
}

/** Writes what the log has gathered; resolves once it is written. */
export function flushLog(log: Logger): Promise<void> {
  const buffer = buffers.get(log);
  if (buffer === undefined) return new Promise((resolve) => log.flush(() => resolve()));
  buffer.flushSync();
  return Promise.resolve();
}
