import { ADDRESS_QUOTA_DEFAULT, SEARCH_QUOTA_DEFAULT } from './limits.ts';

/**
 * What the operator gets without saying otherwise: the CLI's option defaults, the gateway's and
 * the libraries' fallbacks, `npm start` and the scripts all read them from here, so that `--help`,
 * a library call without the option and a first `npm start` can never disagree.
 *
 * Paths are relative to the folder the command runs in (the repository root, decisions.md
 * "Operator interface"); scripts that must work from anywhere join them to the root themselves.
 */
export const OPERATOR_DEFAULTS = {
  // The contract (decisions.md "Operator interface" and "Authentication, scopes, rate limits"): changing one of these
  // changes what operators were promised.
  /** `build --catalog`: the folder of `<game>.jsonl` catalogs. */
  catalogDir: 'data/catalog',
  /** `build --out`, `gc --out`, `serve --snapshots`: where card snapshots are published. */
  snapshots: 'snapshots',
  /** `--db` of every command that reads or writes keys, tokens and decks. */
  db: 'data/snapdeck.db',
  /** `serve --port`. */
  port: 8787,
  /** `serve --host`: loopback, so that nothing is exposed unless the operator says so. */
  host: '127.0.0.1',
  /** `keys create --quota`: requests per key and 15-minute window. */
  keyQuota: 3000,
  /** `serve --address-quota`: GET /decks/{deckId} (no key) per client address and window (limits.ts, the rule's home). */
  addressQuota: ADDRESS_QUOTA_DEFAULT,
  /** `serve --search-quota`: the search routes (no key) per client address and window, a bucket of their own (limits.ts). */
  searchQuota: SEARCH_QUOTA_DEFAULT,
  /** decisions.md "Errors and precedence": a request's headers complete within this, else 408 and the connection closes. */
  headersTimeoutMs: 10_000,
  /** The same: the whole request, headers and body, within this (counted from its first byte), else 408. */
  requestTimeoutMs: 30_000,
  /**
   * `serve --storage-timeout-ms`: a snapshot read on the request path not answered within this
   * long fails the request as when storage is unreachable (decisions.md "Running it": 5 s).
   */
  storageTimeoutMs: 5000,
  /**
   * `--publish-timeout` of the commands that take `--publish`: a publish not done within this
   * gives up with exit 1, the change committed locally (decisions.md "Running it": 60 s).
   */
  publishTimeoutSeconds: 60,
  /**
   * `serve --drain-ms`: after SIGTERM, /readyz answers 503 at once and requests are still served
   * this long, so that the balancer's probes move traffic away before the listener closes
   * (decisions.md "Running it": 5 s).
   */
  drainMs: 5000,
  /**
   * `serve --shutdown-timeout`: SIGTERM to exit at most this many seconds, whatever storage or
   * the clients do; requests still in flight then are cut (decisions.md "Running it": 25 s).
   */
  shutdownTimeoutSeconds: 25,
  /**
   * `gc --keep-changes-days`: a card change record (what a build changed) is kept this many days,
   * longer than the versions' pages (decisions.md "Card changes": 30 days).
   */
  keepChangesDays: 30,
  /**
   * `--keep-deck-changes-days` of the writer commands that prune (decks import, store publish): a
   * deck removal stays in the deck change feed this many days; a cursor older than the oldest
   * removal pruned answers 410 (decisions.md "Deck changes": 30 days).
   */
  keepDeckChangesDays: 30,
  /**
   * After every request of a shutdown is answered: the longest wait for the storage and store
   * clients to close (a presence record removed, a poll in flight ended). Storage that answers
   * takes milliseconds; frozen storage would otherwise hold the exit to the shutdown timeout.
   */
  shutdownReleaseMs: 3000,

  // Tuning, not contract: sized for the default catalog on a small host.
  /** `serve --cache-mb`: page and card bodies kept in memory by the snapshot reader, in MiB. */
  cacheMiB: 128,
  /** `serve --store-poll-ms`: how often a gateway following a published store reads its pointer. */
  storePollMs: 1000,
  /**
   * `serve --store-poll-timeout-ms`: every storage read of a `--store` gateway's poll (the
   * pointer, a manifest, a part's index or segment) not answered within this long is given up
   * and the poll tried again soon (so that frozen storage never hangs the follower; the S3
   * client's own timeout is 120 s). A decks object is at most 4 MiB: 5 s asks for 1 MB/s.
   */
  storePollTimeoutMs: 5000,
  /**
   * How often a gateway following a published store rewrites its presence record (what it serves,
   * `_store/gateways/<id>.json`) besides each change: 2,880 PUTs a day per gateway.
   */
  storePresenceMs: 30_000,
  /** `--purge-wait` with `--publish`: the longest wait for every gateway to serve a change before the purge, in seconds. */
  purgeWaitSeconds: 60,
  /**
   * How often the gateway looks for requests past headersTimeoutMs and requestTimeoutMs (Node's
   * connectionsCheckingInterval, 30 s by default): a slow request is cut at most this late.
   */
  timeoutCheckMs: 250,
  /** An idle keep-alive connection is closed after this; longer than a load balancer's usual 60 s, so that it closes first. */
  keepAliveTimeoutMs: 65_000,
  /**
   * `serve --max-connections` default: the process's open-file limit (its soft RLIMIT_NOFILE) less
   * this many descriptors kept for everything else (snapshot and database files, storage and Redis
   * sockets, logs), and at most maxConnectionsCap: an idle connection costs memory as well as a
   * descriptor. When the limit cannot be read, fdLimitFallback (the usual soft limit) is assumed.
   */
  fdReserve: 256,
  /**
   * Connections the kernel completes and queues before the gateway accepts them (listen backlog;
   * Linux caps it at net.core.somaxconn). Node's 511 overflowed in a burst of idle connections:
   * dropped handshakes cost a normal client a 1 s SYN retransmit.
   */
  listenBacklog: 4096,
  maxConnectionsCap: 32_768,
  fdLimitFallback: 1024,
} as const;

/** Bytes in a MiB, for options given in MiB (`--cache-mb`). */
export const MIB = 1024 * 1024;
