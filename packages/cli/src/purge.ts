import { OperatorError } from '@snapdeck/contract';
import { InvalidArgumentError, type Command } from 'commander';
import { ALL_DECKS_KEY, SURROGATE_KEY, SURROGATE_KEY_TOKEN, deckKey } from '@snapdeck/gateway/surrogate-keys';
import { outputOf } from './output.ts';
import { waitForChange, type PublishedChange } from './purge-wait.ts';

/**
 * Cache purges after a change (decisions.md, `--purge URL` on `keys revoke` and `decks import`):
 * `PURGE <url>` with `Surrogate-Key: <token> ...`, which deploy/varnish/snapdeck.vcl turns into
 * a ban of every stored response carrying one of the tokens (the gateway's tokens are listed in
 * packages/gateway/src/http/surrogate-keys.ts).
 */

/** Where `--purge` comes from when it is not given. */
export const PURGE_URL_ENV = 'SNAPDECK_PURGE_URL';
/**
 * Tokens per PURGE request: a deck token is 41 bytes, so 128 of them stay well inside Varnish's
 * default request header limit (8 KB) and Fastly's 256 keys per batch purge.
 */
export const KEYS_PER_REQUEST = 128;
/**
 * More changed decks than this and the import purges the token every deck response carries
 * (`decks`) instead: one ban rather than thousands, each of which the cache would test on
 * lookups until its lurker had cleared them.
 */
export const MAX_DECK_KEYS = 1024;
const ATTEMPTS = 3;
const TIMEOUT_MS = 10_000;

/** A `--purge` value: an http(s) URL (commander argument parser; repeatable). */
export function purgeUrlOption(value: string, previous: string[] = []): string[] {
  return [...previous, checkedUrl(value, (message) => new InvalidArgumentError(message))];
}

function checkedUrl(value: string, error: (message: string) => Error): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw error(`${JSON.stringify(value)} is not a URL; expected the cache's address, such as http://127.0.0.1:6081/`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw error(`${JSON.stringify(value)} is not an http(s) URL`);
  return url.href;
}

/**
 * The caches to purge: the `--purge` options, else the URLs in SNAPDECK_PURGE_URL (separated by
 * spaces or commas: one per cache server). Empty: no purge. Throws on a malformed URL in the
 * environment variable, before anything is changed.
 */
export function purgeTargets(options: string[] | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
  if (options && options.length > 0) return options;
  const fromEnv = (env[PURGE_URL_ENV] ?? '').split(/[\s,]+/).filter((url) => url !== '');
  return fromEnv.map((url) => checkedUrl(url, (message) => new Error(`${PURGE_URL_ENV}: ${message}`)));
}

/** The surrogate keys of the decks an import changed: each deck's token, or `decks` for many. */
export class ChangedDecks {
  private readonly ids = new Set<string>();
  private overflow = false;

  add(deckId: string): void {
    if (this.overflow) return;
    this.ids.add(deckId);
    if (this.ids.size > MAX_DECK_KEYS) {
      this.overflow = true;
      this.ids.clear();
    }
  }

  get surrogateKeys(): string[] {
    return this.overflow ? [ALL_DECKS_KEY] : [...this.ids].map(deckKey);
  }
}

export class PurgeError extends OperatorError {}

/** One PURGE, retried on network errors, timeouts and 5xx; throws PurgeError with the reason. */
async function purgeOnce(url: string, tokens: string, timeoutMs: number): Promise<void> {
  let reason = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** (attempt - 2)));
    try {
      const response = await fetch(url, { method: 'PURGE', headers: { [SURROGATE_KEY]: tokens }, signal: AbortSignal.timeout(timeoutMs) });
      const body = (await response.text()).trim().slice(0, 300);
      if (response.ok) return;
      reason = `HTTP ${response.status}${body ? `: ${body}` : ''}`;
      if (response.status < 500) break; // refused (not in the ACL, bad header): retrying cannot help
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (cause?.code ?? cause?.message ?? (error as Error).message);
    }
  }
  throw new PurgeError(`${url}: ${reason}`);
}

/**
 * Purges `keys` at every URL (all URLs at once, each in requests of KEYS_PER_REQUEST tokens).
 * Every URL is tried even when one fails; then throws a PurgeError naming each failure.
 * Returns the number of requests sent to each URL.
 */
export async function purgeSurrogateKeys(urls: readonly string[], keys: readonly string[], options: { timeoutMs?: number } = {}): Promise<number> {
  for (const key of keys) if (!SURROGATE_KEY_TOKEN.test(key)) throw new Error(`not a surrogate key token: ${JSON.stringify(key)}`);
  const batches: string[] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_REQUEST) batches.push(keys.slice(i, i + KEYS_PER_REQUEST).join(' '));
  const results = await Promise.allSettled(
    urls.map(async (url) => {
      for (const batch of batches) await purgeOnce(url, batch, options.timeoutMs ?? TIMEOUT_MS);
    }),
  );
  const failures = results.flatMap((result) => (result.status === 'rejected' ? [(result.reason as Error).message] : []));
  if (failures.length > 0) throw new PurgeError(failures.join('; '));
  return batches.length;
}

/** How to purge by hand what a failed purge left, for the error message. */
export function manualPurge(urls: readonly string[], keys: readonly string[]): string {
  const shown = keys.length > KEYS_PER_REQUEST ? [ALL_DECKS_KEY] : keys;
  return urls.map((url) => `curl -X PURGE -H '${SURROGATE_KEY}: ${shown.join(' ')}' ${url}`).join('\n  ');
}

/** The `--purge URL` option's help (keys revoke, decks import). */
export function purgeHelp(what: string): string {
  return `after the change, send PURGE to this cache URL with Surrogate-Key naming ${what} (repeatable; default: $${PURGE_URL_ENV}, URLs separated by spaces or commas)`;
}

/** The caches to purge (options, else the environment), checked before anything changes. */
export function purgeTargetsOf(options: string[] | undefined): string[] {
  try {
    return purgeTargets(options);
  } catch (error) {
    throw new OperatorError(`${(error as Error).message}; nothing was changed`);
  }
}

/**
 * When the purge may go: once every gateway following the store serves the published change
 * (purge-wait.ts), or `settleMs` after the commit for gateways reading the database itself.
 */
export type PurgeWhen = { published: PublishedChange } | { settleMs: number };

/**
 * After a committed change: waits as `when` says, so that no request can put the old answer back
 * into the cache after the purge, then purges `keys` at `urls`. A failed purge, or a wait that ran
 * out before every gateway served the change (the purge is sent all the same), ends the command
 * with exit 1, saying the change itself was made and what to run by hand.
 */
export async function purgeAfterChange(command: Command, urls: readonly string[], keys: readonly string[], change: string, when: PurgeWhen): Promise<void> {
  if (urls.length === 0 || keys.length === 0) return;
  const { err } = outputOf(command);
  let lagging: string | null = null;
  if ('published' in when) {
    const waited = await waitForChange(when.published);
    err(waited.note);
    lagging = waited.lagging;
  } else if (when.settleMs > 0) {
    await new Promise((resolve) => setTimeout(resolve, when.settleMs));
  }
  let failed: string | null = null;
  try {
    const requests = await purgeSurrogateKeys(urls, keys);
    const named = keys.length === 1 ? keys[0] : `${keys.length} surrogate keys`;
    err(`purged ${named} from ${urls.join(', ')} (${requests} request${requests === 1 ? '' : 's'} each)\n`);
  } catch (error) {
    if (!(error instanceof PurgeError)) throw error;
    failed = error.message;
  }
  if (failed === null && lagging === null) return;
  const manual = `Purge it by hand${lagging && 'published' in when ? ` once every gateway serves ${when.published.version} (npx snapdeck store status --at ${when.published.location})` : ''}:\n  ${manualPurge(urls, keys)}`;
  if (failed !== null) {
    throw new OperatorError(`${change}, but purging the cache failed: ${failed}\n${lagging ? `Also, ${lagging}\n` : ''}The cache may keep serving what changed until it expires. ${manual}`);
  }
  throw new OperatorError(`${change} and the cache was purged, but ${lagging}\n${manual}`);
}
