import { CLIENT_HEADER } from '@snapdeck/contract/client-header';
import { SnapdeckError, errorFor } from './errors.ts';
import { CLIENT_NAME, CLIENT_VERSION } from './version.ts';

export interface RetryOptions {
  /** Retries after the first attempt, for 429, 5xx and network errors together (default 4). */
  maxRetries?: number;
  /**
   * Longest the client waits for a quota window to end on a 429 (Retry-After, else RateLimit's
   * t=, else RateLimit-Reset), in ms (default 60 000). A longer wait is not made: the call
   * fails at once with a RateLimitError whose `retryAfter` says when to come back.
   */
  maxRateLimitWaitMs?: number;
  /** 5xx and network errors: full-jitter exponential backoff, random(0, min(max, base × 2^retry)) ms. */
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export interface RetryEvent {
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  reason: 'rate-limit' | 'server-error' | 'network';
  error: SnapdeckError;
}

export interface ClientOptions {
  /** The API's base URL, version prefix included: https://api.example.com/v1 */
  baseUrl: string;
  /** X-API-Key (sd_live_…); GET /decks/{deckId} works without one. */
  apiKey?: string;
  retry?: RetryOptions;
  /** Per attempt, in ms (default 30 000); a timeout is a network error (retried). */
  timeoutMs?: number;
  /** Called before each retry (logging, metrics). */
  onRetry?: (event: RetryEvent) => void;
  /** Another fetch (a proxy agent, instrumentation); the global one by default. */
  fetch?: typeof fetch;
  /**
   * Origins other than `baseUrl`'s that a game's search descriptor may send the client to for a
   * version's files (a CDN in front of the gateway): `['https://cdn.partner.example']`, scheme,
   * host and port only. By default a search fetches files only from `baseUrl`'s origin, and a
   * descriptor naming any other is a SearchOriginError.
   */
  searchOrigins?: readonly string[];
}

export type Query = Record<string, string | number | undefined>;

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text of a text/plain response. */
  body: unknown;
}

const DEFAULTS = { maxRetries: 4, maxRateLimitWaitMs: 60_000, baseDelayMs: 500, maxDelayMs: 30_000 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds until requests are admitted again, from the 429's headers (null when none says). */
export function rateLimitWaitSeconds(headers: Headers): number | null {
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) return Number(retryAfter);
  if (retryAfter !== null) {
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - Date.now()) / 1000));
  }
  const t = /(?:^|;)\s*t=(\d+)/.exec(headers.get('ratelimit') ?? '');
  if (t) return Number(t[1]);
  const reset = headers.get('ratelimit-reset');
  if (reset !== null && /^\d+$/.test(reset.trim())) return Number(reset);
  return null;
}

/** One HTTP call with the retry policy: 429 waits, 5xx and network errors back off, other 4xx fail at once. */
export class Transport {
  /** The API's base URL without a trailing slash (search indexes resolve their files against it). */
  readonly base: string;
  private readonly retry: Required<RetryOptions>;
  readonly fetch: typeof fetch;
  /** The `fetch` option as given (undefined: the global fetch). */
  readonly givenFetch: typeof fetch | undefined;

  constructor(private readonly options: ClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.retry = { ...DEFAULTS, ...options.retry };
    // Called as a plain function, never as a method of this object: browsers refuse a fetch whose
    // `this` is not the window ("Illegal invocation"). The global one is looked up at each call.
    const given = options.fetch;
    this.givenFetch = given;
    this.fetch = given ? (input, init) => given(input, init) : (input, init) => globalThis.fetch(input, init);
  }

  async request(method: 'GET' | 'POST', path: string, query: Query = {}, body?: unknown): Promise<Reply> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    const url = `${this.base}${path}${params.size > 0 ? `?${params}` : ''}`;
    const headers: Record<string, string> = { Accept: 'application/json, text/plain', [CLIENT_HEADER]: `${CLIENT_NAME}/${CLIENT_VERSION}` };
    if (this.options.apiKey) headers['X-API-Key'] = this.options.apiKey;
    if (body !== undefined) headers['Content-Type'] = 'application/json';

    for (let retry = 0; ; retry++) {
      let error: SnapdeckError;
      let delayMs: number;
      let reason: RetryEvent['reason'];
      try {
        const response = await this.fetch(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
        });
        const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json');
        const text = await response.text();
        const parsed: unknown = isJson && text !== '' ? JSON.parse(text) : text;
        if (response.ok) return { status: response.status, headers: response.headers, body: parsed };
        const errorBody = (isJson ? parsed : {}) as { error?: unknown; detail?: unknown };
        const waitSeconds = response.status === 429 ? rateLimitWaitSeconds(response.headers) : null;
        error = errorFor({
          status: response.status,
          error: typeof errorBody.error === 'string' ? errorBody.error : `HTTP ${response.status}`,
          detail: typeof errorBody.detail === 'string' ? errorBody.detail : undefined,
          requestId: response.headers.get('x-request-id') ?? undefined,
          retryAfter: waitSeconds ?? undefined,
          method,
          url,
        });
        if (response.status === 429) {
          reason = 'rate-limit';
          // A little past the window's end: gateway clocks may differ by a moment.
          delayMs = waitSeconds === null ? this.backoff(retry) : waitSeconds * 1000 + Math.floor(Math.random() * 500);
          if (delayMs > this.retry.maxRateLimitWaitMs) throw error;
        } else if (response.status >= 500) {
          reason = 'server-error';
          delayMs = this.backoff(retry);
        } else {
          throw error;
        }
      } catch (thrown) {
        if (thrown instanceof SnapdeckError) throw thrown;
        // No response, a timeout, or a body cut short (not JSON): worth another attempt.
        error = errorFor({ status: 0, error: 'Network error', detail: (thrown as Error).message, method, url, cause: thrown });
        reason = 'network';
        delayMs = this.backoff(retry);
      }
      if (retry >= this.retry.maxRetries) throw error;
      this.options.onRetry?.({ retry: retry + 1, delayMs, reason, error });
      await sleep(delayMs);
    }
  }

  /** Full jitter: random(0, min(maxDelay, base × 2^retry)). */
  private backoff(retry: number): number {
    return Math.floor(Math.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** retry));
  }
}
