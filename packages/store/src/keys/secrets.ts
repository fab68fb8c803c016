/**
 * The one reading of an API key as presented (the gateway's X-API-Key header, `keys revoke`'s
 * argument), and what a message may show of a string that may be a secret.
 */

/** decisions.md: keys look like `sd_live_<32 lowercase hex>`. */
export const KEY_PATTERN = /^sd_live_[0-9a-f]{32}$/;

/** Key ids (`keys list`, `keys revoke key_…`): `key_` and 12 lowercase hex digits. */
export const KEY_ID_PATTERN = /^key_[0-9a-f]{12}$/;

/**
 * A presented key, normalized, or null when it is malformed. Surrounding whitespace is dropped (an
 * HTTP server drops it from a header value; a shell or a paste adds it to an argument); nothing
 * else is changed: a key is lowercase hex, so an upper-case key is malformed everywhere.
 */
export function normalizeApiKey(presented: string): string | null {
  const key = presented.trim();
  return KEY_PATTERN.test(key) ? key : null;
}

/**
 * What looks like a key, a share token or a `pd_` link: the prefix and 16 or more letters or
 * digits, in any case, wherever it stands. Looser than a well-formed secret (32 lowercase hex) on
 * purpose: an upper-cased secret is still the secret to whoever lower-cases it, and one with a typo
 * (a letter off, a character too many) is still most of it. No look-behind: a prefix glued to a
 * letter or digit (`0sd_live_…`, `e0da5pd_…`, `app/1.0+xsd_live_…`) is still followed by the
 * secret. Text such as `test_catalog` stays as it is: 16 letters or digits must follow the prefix.
 */
const SECRET_LOOKING = /(sd_live_|st_|pd_)[0-9a-z]{16,}/gi;
const SECRET_LOOKING_ONCE = new RegExp(SECRET_LOOKING.source, 'i');

/**
 * `text` with every secret-looking run replaced by its prefix and `[REDACTED]`: what a log line
 * carries of anything a client sent, wherever the client put it (an unknown parameter, a misspelt
 * one, a path segment, a header).
 */
export function maskSecrets(text: string): string {
  // Every prefix has an underscore: most text (a card's URL) has none, and skips the regex.
  return text.includes('_') ? text.replace(SECRET_LOOKING, '$1[REDACTED]') : text;
}

/** As much of a key as `keys list` shows (its prefix): never enough to use it. */
export const SHOWN_SECRET_CHARS = 12;

/** Whether `text` holds anything that looks like a key, a share token or a `pd_` link. */
export function looksLikeSecret(text: string): boolean {
  return SECRET_LOOKING_ONCE.test(text);
}

/**
 * `text` with everything that looks like a secret cut to its first SHOWN_SECRET_CHARS characters
 * and `…`: what a message may repeat of a value the user gave (a CLI error that quotes an argument,
 * an import error that names a JSON member, a logged header).
 */
export function shortenSecrets(text: string): string {
  return text.replace(SECRET_LOOKING, (secret) => `${secret.slice(0, SHOWN_SECRET_CHARS)}…`);
}

/**
 * A string that may be a key, a token or a `pd_` link, as an error message may show it: quoted,
 * and cut to its first SHOWN_SECRET_CHARS characters when longer (every secret is longer).
 */
export function redactSecret(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length <= SHOWN_SECRET_CHARS) return JSON.stringify(trimmed);
  return `${JSON.stringify(`${trimmed.slice(0, SHOWN_SECRET_CHARS)}…`)} (${trimmed.length} characters; the rest is not shown)`;
}
