import { windowOf } from './counter.ts';

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
