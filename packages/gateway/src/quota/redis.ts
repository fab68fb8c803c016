import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { MemoryQuotaCounter, windowOf, type QuotaCounter, type QuotaDecision } from './counter.ts';
import { redactRedisUrl, redisErrorForLog, redisUrlSecrets } from './redis-url.ts';

/**
 * One atomic step per request: count it, unless it runs too late, and make sure the window's key
 * expires.
 *
 * KEYS[1]  snapdeck:quota:<window start, epoch seconds>:<subject>
 * ARGV[1]  when the key expires, epoch milliseconds (the window's end plus a grace period)
 * ARGV[2]  the command's deadline, epoch milliseconds: when the gateway gives up waiting for it
 *
 * A command that Redis runs after its deadline (by Redis's clock, TIME) counts nothing and returns
 * minus that time, a negative number that can never be a count: the gateway has already given up
 * on it and decided the request in-process, so counting it too would count one request twice (a
 * stalled Redis runs everything it was sent once it resumes). Reading the clock before a write
 * needs scripts replicated by their effects: Redis 5 or later.
 *
 * The first increment creates the key and sets its expiry in the same script, so no key is ever
 * left without one (a key found without a TTL, say after a manual PERSIST, gets it back). The
 * count is returned and compared with the quota by the caller: INCR is atomic, so N concurrent
 * requests get the distinct counts 1..N and exactly min(N, Q) of them are <= Q, across any number
 * of gateway processes. Rejected requests raise the count past Q; that changes nobody's admission.
 */
export const QUOTA_SCRIPT = `
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)
if now > tonumber(ARGV[2]) then
  return -now
end
local count = redis.call('INCR', KEYS[1])
if count == 1 or redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[1])
end
return count
`;

export const QUOTA_KEY_PREFIX = 'snapdeck:quota:';

/** The Redis key counting `subject` in the window that contains `nowMs`: `<prefix><window start, epoch seconds>:<subject>`. */
export function quotaKey(prefix: string, subject: string, nowMs: number): string {
  return `${prefix}${windowOf(nowMs).start / 1000}:${subject}`;
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
 * When Redis is unreachable (refused, or slower than `commandTimeoutMs`) the gateway fails OPEN,
 * degraded: it logs an error once, and counts in this process (MemoryQuotaCounter) until Redis
 * answers again. Meanwhile the quota is enforced per process, not across processes (a key may get
 * up to Q per process per window), and requests counted in-process are not added to Redis later:
 * a command the gateway gave up on counts nothing when a stalled Redis runs it after all (its
 * deadline, QUOTA_SCRIPT). One Redis answers too late by its own clock (a Redis as slow as the
 * timeout, or a clock ahead of the gateway host's) is handled the same way, and logged as such.
 * After a failure, one request per `retryAfterMs` probes Redis while the others count
 * in-process, so a hung Redis costs one slow request per second, not every request; a TIME every
 * `retryAfterMs` meanwhile notices Redis back on a gateway with no traffic (snapdeck_quota_degraded
 * clears by itself), unless its clock is still ahead. Failing closed (500 for every keyed request) would turn a
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
      // No commandTimeout: consume() gives up on its own (countInRedis()); ioredis' would start only once
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

  async consume(subject: string, quota: number): Promise<QuotaDecision> {
    const now = this.now();
    if (this.degraded) {
      if (now < this.skipUntil) return this.fallback.consume(subject, quota);
      // This request probes Redis; the ones arriving meanwhile keep counting in-process.
      this.skipUntil = now + this.retryAfterMs;
    }
    const { end } = windowOf(now);
    let count: number;
    try {
      count = await this.countInRedis(quotaKey(this.keyPrefix, subject, now), String(end + this.graceMs), now + this.commandTimeoutMs);
    } catch (error) {
      this.markDown(error);
      return this.fallback.consume(subject, quota);
    }
    if (count < 0) {
      // Redis ran it after its deadline (by its clock) and counted nothing, yet this process was
      // still waiting: Redis's clock is ahead of this host's, or Redis is as slow as the timeout.
      const answeredAt = this.now();
      this.markDown(undefined, { redisClockAheadAtLeastMs: -count - answeredAt, waitedMs: answeredAt - now });
      return this.fallback.consume(subject, quota);
    }
    this.markUp();
    const resetSeconds = Math.max(1, Math.ceil((end - now) / 1000));
    return { allowed: count <= quota, quota, remaining: Math.max(0, quota - count), resetSeconds };
  }

  /**
   * QUOTA_SCRIPT, given up `commandTimeoutMs` after the request asked: the moment of its deadline.
   * Not ioredis' commandTimeout, which starts when a command is written: auto-pipelined commands
   * are written one pipeline at a time, so during a stall those that asked while the first
   * pipeline was out waited for it to time out, then for their own (up to twice the timeout). The
   * give-up waits for the loop's next check phase (setImmediate), so that an answer already
   * received is read first rather than the request counted in-process too.
   */
  private countInRedis(key: string, expireAt: string, deadline: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => setImmediate(() => reject(new Error(`no answer within ${this.commandTimeoutMs} ms`))), this.commandTimeoutMs);
      this.redis.snapdeckQuota(key, expireAt, String(deadline)).then(
        (count) => {
          clearTimeout(timer);
          resolve(count);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /** Counts in-process from now on; `late` when Redis answered, but after the command's deadline. */
  private markDown(error: unknown, late?: { redisClockAheadAtLeastMs: number; waitedMs: number }): void {
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
    // Commands have no timeout of their own (countInRedis()): one TIME at a time, however long it waits.
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
