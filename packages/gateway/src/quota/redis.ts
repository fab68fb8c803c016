import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { MemoryQuotaCounter, windowOf, type QuotaCounter, type QuotaDecision } from './counter.ts';
import { redactRedisUrl, redisErrorForLog, redisUrlSecrets } from './redis-url.ts';
import { QUOTA_KEY_PREFIX, QUOTA_SCRIPT, quotaKey } from './script.ts';

/** A quota command Redis ran after its deadline, answered while the gateway still waited (logged). */
interface LateAnswer {
  /** Redis's clock when it ran the command, less this host's when the answer came: a lower bound. */
  redisClockAheadAtLeastMs: number;
  waitedMs: number;
}

/** A request waiting for Redis's answer; `timer` is undefined once it is decided (one way or the other). */
interface WaitingCall {
  subject: string;
  quota: number;
  now: number;
  end: number;
  resolve: (decision: QuotaDecision) => void;
  timer: NodeJS.Timeout | undefined;
}

type QuotaRedis = Redis & { snapdeckQuota(key: string, expireAtMs: string, deadlineMs: string): Promise<number> };

export interface RedisQuotaCounterOptions {
  /**
   * Clock for the window and each command's deadline (tests). Both come from the gateway's clock
   * and the deadline is checked by Redis's: keep the hosts on NTP.
   */
  now?: () => number;
  log?: Pick<Logger, 'error' | 'warn' | 'info'>;
  /**
   * A request whose quota command has no answer this long after it asked is decided in-process, as
   * when Redis is down; the command's deadline, so it counts nothing if Redis runs it later
   * (default 250 ms).
   */
  commandTimeoutMs?: number;
  /** After a failure, requests skip Redis for this long before it is tried again (default 1000 ms). */
  retryAfterMs?: number;
  /** How long `ready()` waits for the first connection (default 2000 ms). */
  connectTimeoutMs?: number;
  /** Keys outlive their window by this much (default 60 s), so a slow clock never counts in an expired key. */
  graceMs?: number;
  keyPrefix?: string;
}

/**
 * The quota shared by every gateway process: one Redis key per subject and window, counted by
 * QUOTA_SCRIPT through ioredis' defineCommand: the first call on a connection is an EVAL (which
 * loads the script), every later one an EVALSHA; a NOSCRIPT (Redis restarted or flushed) is
 * answered by one EVAL again, auto-pipelined commands included (test/quota-redis.test.ts).
 *
 * When Redis is unreachable (refused, or no answer `commandTimeoutMs` after the request asked)
 * the gateway fails OPEN, degraded: it logs an error once, and counts in this process
 * (MemoryQuotaCounter) until Redis answers again. Meanwhile the quota is enforced per process, not
 * across processes (a key may get up to Q per process per window), and requests counted in-process
 * are not added to Redis later: a command the gateway gave up on counts nothing when a stalled
 * Redis runs it after all (its deadline, QUOTA_SCRIPT). A command Redis says it ran after its
 * deadline while the gateway still waited (Redis's clock ahead of the gateway host's, or Redis as
 * slow as the timeout) is handled the same way, and logged as such. After a failure, one request
 * per `retryAfterMs` probes Redis while the others count in-process, so a hung Redis costs one
 * slow request per second, not every request; a TIME every `retryAfterMs` meanwhile notices Redis
 * back on a gateway with no traffic (snapdeck_quota_degraded clears by itself), unless its clock is
 * still ahead. Failing closed (500 for every keyed request) would turn a
 * Redis outage into a full API outage; the quota protects capacity, and per-process counting still
 * does that.
 */
export class RedisQuotaCounter implements QuotaCounter {
  readonly redis: QuotaRedis;
  private readonly fallback: MemoryQuotaCounter;
  private readonly now: () => number;
  private readonly log: RedisQuotaCounterOptions['log'];
  private readonly retryAfterMs: number;
  private readonly commandTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly graceMs: number;
  private readonly keyPrefix: string;
  /** The URL as it may be logged (redis-url.ts), and the secrets scrubbed from logged errors. */
  private readonly where: string;
  private readonly secrets: string[];
  private skipUntil = 0;
  /** The current window's end, and what every request of it sends (consume()). */
  private windowEnd = 0;
  private windowKeyPrefix = '';
  private expireAt = '';
  private closed = false;
  /** While degraded: asks Redis the TIME every `retryAfterMs`, so recovery is seen without traffic. */
  private recheck: NodeJS.Timeout | undefined;
  /** True while requests are counted in this process because Redis is unreachable or late. */
  degraded = false;

  constructor(url: string, options: RedisQuotaCounterOptions = {}) {
    this.now = options.now ?? Date.now;
    this.log = options.log;
    this.retryAfterMs = options.retryAfterMs ?? 1000;
    this.commandTimeoutMs = options.commandTimeoutMs ?? 250;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 2000;
    this.graceMs = options.graceMs ?? 60_000;
    this.keyPrefix = options.keyPrefix ?? QUOTA_KEY_PREFIX;
    this.where = redactRedisUrl(url);
    this.secrets = redisUrlSecrets(url);
    this.fallback = new MemoryQuotaCounter(this.now);
    this.redis = new Redis(url, {
      // No commandTimeout: consume() gives up on its own timer; ioredis' would start only once
      // a command is written, which an auto-pipelined one is only after the pipeline before it.
      connectTimeout: this.connectTimeoutMs,
      // Fail fast instead of queueing while disconnected: the fallback answers meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // Keep reconnecting, at most every 2 s.
      retryStrategy: (times) => Math.min(times * 100, 2000),
      lazyConnect: true,
      // The quota commands of the requests answered in one event-loop turn go out in one write and
      // come back in one read: one card by id with --redis from 0.69-0.70 to 0.73-0.76 of the
      // gateway counting in-process (bench:hotpath, two runs each, one after the other).
      enableAutoPipelining: true,
    }) as QuotaRedis;
    this.redis.defineCommand('snapdeckQuota', { numberOfKeys: 1, lua: QUOTA_SCRIPT });
    // Without a listener ioredis prints every reconnection error; the state changes are logged below.
    this.redis.on('error', (error) => this.markDown(error));
  }

  /**
   * Connects, waiting up to `connectTimeoutMs`. Never throws: when Redis cannot be reached the
   * counter starts degraded (logged) and keeps trying in the background. True when connected.
   */
  async ready(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.redis.connect(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no connection within ${this.connectTimeoutMs} ms`)), this.connectTimeoutMs);
        }),
      ]);
      return true;
    } catch (error) {
      this.markDown(error);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Counted by QUOTA_SCRIPT, or in-process when Redis is down or has not answered
   * `commandTimeoutMs` after the request asked (the moment of the command's deadline). That timer
   * is this one, not ioredis' commandTimeout, which starts when a command is written:
   * auto-pipelined commands are written one pipeline at a time, so during a stall those that
   * asked while the first pipeline was out waited for it to time out, then for their own (twice
   * the timeout). Per request: one promise, one timer (as ioredis' was) and one plain object, no
   * closure but the two `.then` takes: a promise wrapping ioredis' cost 7 % more CPU per call
   * than the ioredis timer alone, closures over the call 16 %, this 3-5 % (the deadline's
   * argument; consume() against a real Redis, 2,000 calls 50 at a time, alternating rounds).
   */
  consume(subject: string, quota: number): QuotaDecision | Promise<QuotaDecision> {
    const now = this.now();
    if (this.degraded) {
      if (now < this.skipUntil) return this.fallback.consume(subject, quota);
      // This request probes Redis; the ones arriving meanwhile keep counting in-process.
      this.skipUntil = now + this.retryAfterMs;
    }
    const { end } = windowOf(now);
    if (end !== this.windowEnd) {
      // The same for every request of a window: made once (a string per request costs).
      this.windowEnd = end;
      this.windowKeyPrefix = quotaKey(this.keyPrefix, '', now);
      this.expireAt = String(end + this.graceMs);
    }
    return new Promise((resolve) => {
      const call: WaitingCall = { subject, quota, now, end, resolve, timer: undefined };
      call.timer = setTimeout(RedisQuotaCounter.giveUp, this.commandTimeoutMs, this, call);
      try {
        this.redis.snapdeckQuota(this.windowKeyPrefix + subject, this.expireAt, String(now + this.commandTimeoutMs)).then(
          (count) => this.answered(call, count),
          (error: unknown) => this.inProcess(call, error),
        );
      } catch (error) {
        this.inProcess(call, error);
      }
    });
  }

  /**
   * The timeout of one call: it is decided in-process, unless Redis's answer is read first. That
   * waits for the loop's next check phase (setImmediate), so that an answer already received is
   * read rather than the request counted in-process too.
   */
  private static giveUp(this: void, counter: RedisQuotaCounter, call: WaitingCall): void {
    setImmediate(() => counter.inProcess(call, new Error(`no answer within ${counter.commandTimeoutMs} ms`)));
  }

  private answered(call: WaitingCall, count: number): void {
    if (call.timer === undefined) return; // given up on: decided in-process already
    if (count < 0) {
      // Redis ran it after its deadline (by its clock) and counted nothing, yet this process was
      // still waiting: Redis's clock is ahead of this host's, or Redis is as slow as the timeout.
      const answeredAt = this.now();
      this.inProcess(call, undefined, { redisClockAheadAtLeastMs: -count - answeredAt, waitedMs: answeredAt - call.now });
      return;
    }
    clearTimeout(call.timer);
    call.timer = undefined;
    this.markUp();
    const { quota } = call;
    call.resolve({ allowed: count <= quota, quota, remaining: Math.max(0, quota - count), resetSeconds: Math.max(1, Math.ceil((call.end - call.now) / 1000)) });
  }

  /** Decides `call` in this process (once: a call already settled is left as it is). */
  private inProcess(call: WaitingCall, error: unknown, late?: LateAnswer): void {
    if (call.timer === undefined) return;
    clearTimeout(call.timer);
    call.timer = undefined;
    this.markDown(error, late);
    call.resolve(this.fallback.consume(call.subject, call.quota));
  }

  /** Counts in-process from now on; `late` when Redis answered, but after the command's deadline. */
  private markDown(error: unknown, late?: LateAnswer): void {
    if (this.closed) return;
    this.skipUntil = this.now() + this.retryAfterMs;
    if (this.degraded) return;
    this.degraded = true;
    if (late === undefined) {
      this.log?.error(
        { err: redisErrorForLog(error, this.secrets), redis: this.where },
        'quota: Redis unreachable; counting in this process until it answers (the quota is per process meanwhile)',
      );
    } else {
      this.log?.error(
        { ...late, redis: this.where },
        "quota: Redis ran a quota command after its deadline by its own clock, and counted nothing; counting in this process until it answers in time (the quota is per process meanwhile). Redis's clock is ahead of this host's, or Redis is as slow as the timeout: keep both hosts on NTP",
      );
    }
    // An idle gateway has no request to probe with: snapdeck_quota_degraded must still clear, once
    // Redis answers and its clock is not so far ahead that its quota commands would all be late.
    // Commands have no timeout in ioredis (consume() has its own): one TIME at a time, however long it waits.
    let asking = false;
    this.recheck = setInterval(() => {
      if (asking) return;
      asking = true;
      this.redis
        .time()
        .then(
          ([seconds, micros]) => {
            if (Number(seconds) * 1000 + Number(micros) / 1000 - this.now() < this.commandTimeoutMs / 2) this.markUp();
          },
          () => {},
        )
        .finally(() => (asking = false));
    }, this.retryAfterMs).unref();
  }

  private markUp(): void {
    if (!this.degraded || this.closed) return;
    this.degraded = false;
    clearInterval(this.recheck);
    this.log?.warn({ redis: this.where }, 'quota: Redis answers again; the quota is shared across processes again');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.recheck);
    if (this.redis.status === 'ready') {
      try {
        await Promise.race([this.redis.quit(), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
      } catch {
        // closing anyway
      }
    }
    this.redis.disconnect();
  }
}
