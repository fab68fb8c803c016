import { QUOTA_WINDOW_SECONDS } from '@snapdeck/contract';

/** Fixed windows of 15 minutes aligned to the clock (:00, :15, :30, :45), decisions.md. */
export const WINDOW_SECONDS = QUOTA_WINDOW_SECONDS;

export interface QuotaDecision {
  allowed: boolean;
  quota: number;
  remaining: number;
  /** Seconds until the window ends (at least 1). */
  resetSeconds: number;
}

/**
 * Counts requests per subject (a key id, or a client address) in the current window. Admission
 * must be exact: N concurrent requests against quota Q admit exactly min(N, Q).
 */
export interface QuotaCounter {
  consume(subject: string, quota: number): QuotaDecision | Promise<QuotaDecision>;
  /**
   * Present on a counter shared across processes (quota/redis.ts): true while its backend is
   * unreachable or too late and this process counts alone (the snapdeck_quota_degraded gauge, metrics.ts).
   */
  readonly degraded?: boolean;
  close?(): Promise<void>;
}

export function windowOf(nowMs: number): { start: number; end: number } {
  const size = WINDOW_SECONDS * 1000;
  const start = Math.floor(nowMs / size) * size;
  return { start, end: start + size };
}

/**
 * In-process counting: exact because Node runs this synchronously on one thread. Only windows
 * still current are kept; a sweep drops the others when the window turns.
 */
export class MemoryQuotaCounter implements QuotaCounter {
  private counts = new Map<string, number>();
  private windowStart = 0;

  constructor(private readonly now: () => number = Date.now) {}

  consume(subject: string, quota: number): QuotaDecision {
    const now = this.now();
    const { start, end } = windowOf(now);
    if (start !== this.windowStart) {
      this.counts = new Map();
      this.windowStart = start;
    }
    const used = this.counts.get(subject) ?? 0;
    const resetSeconds = Math.max(1, Math.ceil((end - now) / 1000));
    if (used >= quota) return { allowed: false, quota, remaining: 0, resetSeconds };
    this.counts.set(subject, used + 1);
    return { allowed: true, quota, remaining: quota - used - 1, resetSeconds };
  }
}

/** Both header families of decisions.md, for every metered response (429 included). */
export function quotaHeaders(decision: QuotaDecision): Record<string, string> {
  return addQuotaHeaders({}, decision);
}

/** Adds quotaHeaders(decision) to `headers`, in the same order, without a second object. */
export function addQuotaHeaders(headers: Record<string, string>, decision: QuotaDecision): Record<string, string> {
  headers['RateLimit-Policy'] = `"default";q=${decision.quota};w=${WINDOW_SECONDS}`;
  headers.RateLimit = `"default";r=${decision.remaining};t=${decision.resetSeconds}`;
  headers['RateLimit-Limit'] = String(decision.quota);
  headers['RateLimit-Remaining'] = String(decision.remaining);
  headers['RateLimit-Reset'] = String(decision.resetSeconds);
  if (!decision.allowed) headers['Retry-After'] = String(decision.resetSeconds);
  return headers;
}
