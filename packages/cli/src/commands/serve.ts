import { Command, InvalidArgumentError, Option } from 'commander';
import { GAME_SLUGS, MIB, OPERATOR_DEFAULTS, OperatorError } from '@snapdeck/contract';
import type { SnapshotReader } from '@snapdeck/snapshot';
import type { Deprecation } from '@snapdeck/gateway';
import { checkWritableFolder, dbOption, nonNegativeInteger, optionsFromEnvironment, positiveInteger, quota } from '../options.ts';
import { outputOf } from '../output.ts';
import { checkStoreLocation } from '../store-location.ts';

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return Number(value);
}

/**
 * Names the public games with nothing published at the snapshot location, and the command that
 * publishes them: the gateway's own error (NoSnapshotError) says what is missing, not which CLI
 * command fixes it. A location that cannot be read is left to the gateway's log and /readyz.
 */
async function hintUnpublished(snapshots: SnapshotReader, location: string, err: (text: string) => void): Promise<void> {
  const missing: string[] = [];
  for (const game of GAME_SLUGS) {
    try {
      if ((await snapshots.current(game)) === null) missing.push(game);
    } catch {
      // Unreadable, not unpublished: logged by the gateway, and /readyz answers 503.
    }
  }
  if (missing.length === 0) return;
  err(`no snapshot has been published for ${missing.join(', ')} at ${location} (card endpoints 500, /readyz 503 until there is): run \`npx snapdeck build --out ${location}\`\n`);
}

export function registerServeCommand(program: Command): void {
  optionsFromEnvironment(program.command('serve'))
    .description('Serve /v1 over HTTP from the published snapshots and the SQLite database')
    .option('--port <n>', 'port to listen on', port, OPERATOR_DEFAULTS.port)
    .option('--host <host>', 'address to bind', OPERATOR_DEFAULTS.host)
    .option('--snapshots <location>', 'snapshot location: a folder, or s3://bucket/prefix', OPERATOR_DEFAULTS.snapshots)
    .addOption(dbOption('SQLite database (keys, decks): single-host mode'))
    .option('--store <location>', 'stateless mode: keys, tokens and decks from the store published at this folder or s3://bucket/prefix (instead of --db)')
    .option('--cache-dir <dir>', 'with --store: folder for downloaded store versions (default: a temporary folder, removed on exit); kept across restarts, it lets a gateway start on its last version while storage is unreachable')
    .option('--store-poll-ms <n>', 'with --store: how often to look for a new store version', positiveInteger, OPERATOR_DEFAULTS.storePollMs)
    .option('--store-poll-timeout-ms <n>', 'with --store: a storage read of a poll (pointer, manifest) not answered within this long is given up and tried again soon, so a frozen storage never hangs the follower (part downloads: the storage client\'s idle timeout)', positiveInteger, OPERATOR_DEFAULTS.storePollTimeoutMs)
    .option('--max-store-age <seconds>', 'with --store: fail closed (keyed endpoints and GET /v1/decks/{id} answer 500, /readyz 503) once storage has not confirmed the store for this long; default: keep serving the last version', positiveInteger)
    .option('--storage-timeout-ms <n>', 'a snapshot read not answered within this long fails its request (500) as when storage is unreachable, instead of waiting for the storage client\'s retries', positiveInteger, OPERATOR_DEFAULTS.storageTimeoutMs)
    .option('--cache-mb <n>', 'memory for cached pages and cards, in MiB', positiveInteger, OPERATOR_DEFAULTS.cacheMiB)
    .option('--address-quota <n>', 'requests per 15-minute window per client address for GET /v1/decks/{deckId} (no key)', quota, OPERATOR_DEFAULTS.addressQuota)
    .option('--search-quota <n>', 'requests per 15-minute window per client address for the search routes, /v1/search/... (no key; a bucket apart from --address-quota\'s: a browser search costs about 8 requests a query)', quota, OPERATOR_DEFAULTS.searchQuota)
    .addOption(
      new Option(
        '--trust-proxy [hops]',
        'the gateway sits behind this many proxies you trust (default 1 when given without a number): the client address for the per-address limit is the Nth X-Forwarded-For entry from the right, the one your nearest proxy appended',
      )
        .argParser(nonNegativeInteger)
        .preset(1),
    )
    .option('--redis <url>', 'share quotas across gateway processes through Redis (redis://host:6379); while it is unreachable each process counts alone')
    .option(
      '--max-connections <n>',
      `open connections at most; beyond them a new connection is closed as soon as it is accepted (default: the open-file limit, ulimit -n, less ${OPERATOR_DEFAULTS.fdReserve}, at most ${OPERATOR_DEFAULTS.maxConnectionsCap}; the startup line shows it)`,
      positiveInteger,
    )
    .option('--drain-ms <n>', 'after SIGTERM: /readyz answers 503 at once and requests are still served this long, so the balancer moves away before the port closes (0: no drain)', nonNegativeInteger, OPERATOR_DEFAULTS.drainMs)
    .option('--shutdown-timeout <seconds>', 'after SIGTERM: exit within this long whatever storage or the clients do (drain included; requests still in flight then are cut)', positiveInteger, OPERATOR_DEFAULTS.shutdownTimeoutSeconds)
    .option('--deprecations <file>', 'JSON array of {method?, path, announcedAt, sunsetAt, link}: routes that answer with Deprecation, Sunset and Link headers')
    .addHelpText(
      'after',
      `
Every option can also be set by an environment variable, SNAPDECK_<OPTION> (shown beside each
option above: --store-poll-ms is SNAPDECK_STORE_POLL_MS); a flag wins over the variable.
A newly built version becomes the one served within a second, without a restart. On SIGTERM
or Ctrl-C /readyz answers 503 at once, requests are still served for --drain-ms, then the port
closes, in-flight requests finish, and the process exits within --shutdown-timeout whatever
storage does (exit 1 when the timeout cut requests in flight). Slow clients are cut, in
a shutdown too: a request whose headers take over ${OPERATOR_DEFAULTS.headersTimeoutMs / 1000} s, or that is not complete, body
included, ${OPERATOR_DEFAULTS.requestTimeoutMs / 1000} s after it began, is answered 408 and its connection closed. --port 0 picks a free
port; the URL is printed on stderr either way. Also served: GET /healthz, /readyz, /metrics, and
the API reference at /docs.
LOG_LEVEL (default info; silent turns the JSON access log off) sets what is logged on stdout.

With --store, the gateway keeps no state of its own: it downloads the published store version
into --cache-dir, follows new versions in the background (keys and tokens within a second or two,
decks once downloaded), and keeps serving its last version while storage is unreachable.

Examples:
  npx snapdeck serve --port ${OPERATOR_DEFAULTS.port} --snapshots ${OPERATOR_DEFAULTS.snapshots} --db ${OPERATOR_DEFAULTS.db}
  npx snapdeck serve --snapshots s3://my-bucket/snapdeck --store s3://my-bucket/snapdeck --redis redis://10.0.0.5:6379 --cache-dir /var/cache/snapdeck`,
    )
    .action(async (options: { port: number; host: string; snapshots: string; db: string; store?: string; cacheDir?: string; storePollMs: number; storePollTimeoutMs: number; maxStoreAge?: number; storageTimeoutMs: number; cacheMb: number; addressQuota: number; searchQuota: number; trustProxy?: number; redis?: string; maxConnections?: number; drainMs: number; shutdownTimeout: number; deprecations?: string }, command: Command) => {
      if (options.store !== undefined && command.getOptionValueSource('db') !== 'default') {
        throw new OperatorError('give either --db FILE (single host) or --store LOCATION (stateless gateways), not both (flags or SNAPDECK_DB / SNAPDECK_STORE)');
      }
      if (options.store !== undefined) checkStoreLocation(options.store, `--store ${options.store}`);
      if (options.store === undefined && (options.cacheDir !== undefined || options.maxStoreAge !== undefined)) {
        throw new OperatorError('--cache-dir and --max-store-age go with --store');
      }
      // The gateway's modules load with the one command that runs it (they cost every other command ~0.5 s).
      const { loadDeprecations, redactRedisUrl, startGateway } = await import('@snapdeck/gateway');
      // A wrong file stops the start-up with the problems listed (main.ts prints the message).
      const deprecations: Deprecation[] | undefined = options.deprecations ? await loadDeprecations(options.deprecations) : undefined;
      if (options.cacheDir !== undefined) checkWritableFolder(options.cacheDir, '--cache-dir');
      const gateway = await startGateway({
        port: options.port,
        host: options.host,
        snapshots: options.snapshots,
        ...(options.store !== undefined
          ? { store: options.store, cacheDir: options.cacheDir, storePollMs: options.storePollMs, storePollTimeoutMs: options.storePollTimeoutMs, maxStoreAgeMs: options.maxStoreAge !== undefined ? options.maxStoreAge * 1000 : undefined }
          : { db: options.db }),
        cacheBytes: options.cacheMb * MIB,
        storageTimeoutMs: options.storageTimeoutMs,
        addressQuota: options.addressQuota,
        searchQuota: options.searchQuota,
        trustProxy: options.trustProxy ?? 0,
        redis: options.redis,
        maxConnections: options.maxConnections,
        deprecations,
      }).catch((error: NodeJS.ErrnoException) => {
        // Another process on the port: one line naming the way out (main.ts prints it, exit 1).
        if (error.code === 'EADDRINUSE') throw new OperatorError(`port ${options.port} on ${options.host} is taken (another process listens there): pick another with --port N (or SNAPDECK_PORT=N)`);
        throw error;
      });
      const { err } = outputOf(command);
      err(
        `snapdeck gateway listening on ${gateway.url}/v1 (snapshots: ${options.snapshots}, ${options.store !== undefined ? `store: ${options.store}${gateway.store.status().ready ? ` at ${gateway.store.status().version}` : ' (not loaded yet: not ready)'}` : `db: ${options.db}`}` +
          `${options.redis ? `, quota: ${redactRedisUrl(options.redis)}` : ''}${deprecations?.length ? `, ${deprecations.length} deprecated route(s)` : ''}, max connections: ${gateway.server.maxConnections})\n`,
      );
      // Serves until SIGTERM or SIGINT, then shuts down (gateway/src/shutdown.ts); main.ts then exits.
      const stopped = new Promise<string>((resolve) => {
        process.once('SIGTERM', () => resolve('SIGTERM'));
        process.once('SIGINT', () => resolve('SIGINT'));
      });
      // After the handlers are in place: a stop during the look is still a graceful one.
      void hintUnpublished(gateway.snapshots, options.snapshots, err);
      const signal = await stopped;
      err(`${signal}: not ready (/readyz 503), serving ${options.drainMs} ms more, then finishing in-flight requests; exit within ${options.shutdownTimeout} s\n`);
      const outcome = await gateway.shutdown({ drainMs: options.drainMs, timeoutMs: options.shutdownTimeout * 1000 });
      if (!outcome.requestsFinished) throw new OperatorError(`${signal}: the shutdown timeout (${options.shutdownTimeout} s) ran out with requests in flight; their connections were closed`);
      const unreleased = outcome.released ? '' : ' (closing the storage clients did not finish: storage gave no answer)';
      err(`${signal}: stopped after ${(outcome.elapsedMs / 1000).toFixed(1)} s, every request answered${unreleased}\n`);
    });
}
