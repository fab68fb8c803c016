import { ERRORS } from '@snapdeck/contract/errors';

export interface SnapdeckErrorInit {
  /** HTTP status; 0 when no response came (network error, timeout). */
  status: number;
  /** The documented error string (interface.md §7), `Network error` when no response came. */
  error: string;
  detail?: string;
  /** X-Request-Id of the failed response: quote it to the operator. */
  requestId?: string;
  /** Seconds to wait before retrying (Retry-After), when the server said. */
  retryAfter?: number;
  method: string;
  url: string;
  cause?: unknown;
}

/**
 * Every failure of the client. Switch on the subclass (instanceof) or on `status` and `error`,
 * the documented string; `detail` is an explanation for humans, not stable wording.
 */
export class SnapdeckError extends Error {
  readonly status: number;
  readonly error: string;
  readonly detail: string | undefined;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly method: string;
  readonly url: string;

  constructor(init: SnapdeckErrorInit) {
    const where = `${init.method} ${init.url}`;
    const status = init.status === 0 ? 'no response' : String(init.status);
    super(`${where}: ${status} ${init.error}${init.detail ? ` (${init.detail})` : ''}${init.requestId ? ` [request ${init.requestId}]` : ''}`, { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.error = init.error;
    this.detail = init.detail;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.method = init.method;
    this.url = init.url;
  }
}

/** 400: a parameter or body the server refuses. */
export class InvalidRequestError extends SnapdeckError {}
/** 400 `Invalid cursor`: restart the walk from its first page (the walks here do it themselves). */
export class InvalidCursorError extends InvalidRequestError {}
/** 401: the key is missing, unknown or revoked. */
export class AuthenticationError extends SnapdeckError {}
/** 403 `Insufficient scope`: the key lacks the scope the operation needs. */
export class PermissionError extends SnapdeckError {}
/** 404: no such game, card, deck or route (or a private deck without a valid token). */
export class NotFoundError extends SnapdeckError {}
/**
 * 410: a sync's checkpoint is too old: `Version no longer available` (cards: walk again) or
 * `Cursor no longer available; enumerate the public decks again` (decks). syncCards and syncDecks
 * start again by themselves.
 */
export class GoneError extends SnapdeckError {}
/** 429 once the retries allowed by the client's options are used up; `retryAfter` says when to come back. */
export class RateLimitError extends SnapdeckError {}
/** 5xx once the retries are used up. */
export class ServerError extends SnapdeckError {}
/** No response at all (connection refused or reset, timeout) once the retries are used up. */
export class ConnectionError extends SnapdeckError {}
/**
 * `Search engine file mismatch`: a file of a search index that runs as code (the engine's
 * modules, its web worker, its WebAssembly) is not the bytes the contract pins. Refused before any
 * of the engine runs; `url` is the file, `detail` its SHA-256 and the pinned one. Whatever serves
 * it (a proxy, a CDN) changed it, or the index was built with another engine than this client's.
 */
export class SearchIntegrityError extends SnapdeckError {}
/**
 * `Search origin not allowed`: a search descriptor (or a redirect) sent the client to another
 * origin than its `baseUrl`'s for a version's files, and `searchOrigins` does not name it. Refused
 * before anything is fetched from there; `url` is where it was sent.
 */
export class SearchOriginError extends SnapdeckError {}

/** The error for a response, by status (and, for 400, the documented string). */
export function errorFor(init: SnapdeckErrorInit): SnapdeckError {
  const { status } = init;
  if (status === 0) return new ConnectionError(init);
  if (status === 400) return init.error === ERRORS.invalidCursor ? new InvalidCursorError(init) : new InvalidRequestError(init);
  if (status === 401) return new AuthenticationError(init);
  if (status === 403) return new PermissionError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 410) return new GoneError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new ServerError(init);
  return new SnapdeckError(init);
}
