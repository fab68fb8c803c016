import { ADDRESS_QUOTA_DEFAULT } from './limits.ts';

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
  /**
   * `serve --storage-timeout-ms`: a snapshot read on the request path not answered within this
   * long fails the request as when storage is unreachable (decisions.md "Running it": 5 s).
   */
  storageTimeoutMs: 5000,

  // Tuning, not contract: sized for the default catalog on a small host.
  /** `serve --cache-mb`: page and card bodies kept in memory by the snapshot reader, in MiB. */
  cacheMiB: 128,
  /** `serve --store-poll-ms`: how often a gateway following a published store reads its pointer. */
  storePollMs: 1000,
} as const;

/** Bytes in a MiB, for options given in MiB (`--cache-mb`). */
export const MIB = 1024 * 1024;
