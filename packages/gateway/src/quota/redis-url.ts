/**
 * What of a Redis URL may be printed. ioredis (utils parseURL) takes credentials from the
 * user-info (`redis://user:password@host`, both sent with AUTH, even a user alone) and reads
 * *every* query parameter as a client option (`?password=…`, `?username=…`,
 * `?sentinelPassword=…`, …), from a `redis://` / `rediss://` URL, a `//host` one, a bare
 * `host:port?…` and a unix socket path `/tmp/redis.sock?…` alike. So the user-info and every query
 * value are shown as `***`, except the few parameters known to carry no secret.
 */
const SHOWN_PARAMETERS = new Set(['db', 'family']);
const HIDDEN = '***';
/** Shorter values are not scrubbed from free text: they would blank out ordinary words and digits. */
const MIN_SCRUBBED_LENGTH = 4;

interface RedisUrlParts {
  /** The URL as ioredis reads it, or null for a unix socket path. */
  url: URL | null;
  /** The path before `?` for a unix socket path. */
  socketPath?: string;
  query: URLSearchParams;
}

/** Splits `value` as ioredis does (utils parseURL); null when it is not a URL at all. */
function partsOf(value: string): RedisUrlParts | null {
  if (value.startsWith('/') && !value.startsWith('//')) {
    const at = value.indexOf('?');
    return { url: null, socketPath: at === -1 ? value : value.slice(0, at), query: new URLSearchParams(at === -1 ? '' : value.slice(at + 1)) };
  }
  const absolute = /^rediss?:\/\//i.test(value) ? value : value.startsWith('//') ? `redis:${value}` : `redis://${value}`;
  try {
    const url = new URL(absolute);
    return { url, query: url.searchParams };
  } catch {
    return null;
  }
}

function redactedQuery(query: URLSearchParams): string {
  const pairs = [...query].map(([name, value]) => `${encodeURIComponent(name)}=${SHOWN_PARAMETERS.has(name) ? encodeURIComponent(value) : HIDDEN}`);
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/** The URL with its user-info and every query value but `db` and `family` shown as `***`, for logs and messages. */
export function redactRedisUrl(value: string): string {
  const parts = partsOf(value);
  if (!parts) return '<unparseable redis url>';
  if (!parts.url) return `${parts.socketPath}${redactedQuery(parts.query)}`;
  const { url } = parts;
  const userInfo = url.username || url.password ? `${url.username ? HIDDEN : ''}${url.password ? `:${HIDDEN}` : ''}@` : '';
  const query = redactedQuery(parts.query);
  const path = url.pathname === '/' ? (query ? '/' : '') : url.pathname;
  return `${url.protocol}//${userInfo}${url.host}${path}${query}`;
}

/** Every credential-like value in the URL (decoded as ioredis decodes it), to scrub from free text. */
export function redisUrlSecrets(value: string): string[] {
  const parts = partsOf(value);
  if (!parts) return value.length >= MIN_SCRUBBED_LENGTH ? [value] : [];
  const secrets = [...parts.query].filter(([name]) => !SHOWN_PARAMETERS.has(name)).map(([, v]) => v);
  if (parts.url) secrets.push(decoded(parts.url.username), decoded(parts.url.password), parts.url.username, parts.url.password);
  return [...new Set(secrets)].filter((secret) => secret.length >= MIN_SCRUBBED_LENGTH);
}

function decoded(component: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    return component;
  }
}

/** `text` with every one of `secrets` replaced by `***`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let scrubbed = text;
  for (const secret of secrets) scrubbed = scrubbed.split(secret).join(HIDDEN);
  return scrubbed;
}

/**
 * A Redis client error as it may be logged: its kind, code and message with the URL's secrets
 * scrubbed. Never the error itself: ioredis attaches the failed command to a ReplyError
 * (`command.args`), and for a refused AUTH those are the user name and the password.
 */
export function redisErrorForLog(error: unknown, secrets: readonly string[]): { type: string; message: string; code?: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: scrubSecrets(String(error), secrets) };
  const code = (error as NodeJS.ErrnoException).code;
  return { type: error.name, message: scrubSecrets(error.message, secrets), ...(typeof code === 'string' ? { code } : {}) };
}
