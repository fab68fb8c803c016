import { Command, InvalidArgumentError, Option } from 'commander';
import { loadDeprecations, redactRedisUrl, startGateway, type Deprecation } from '@snapdeck/gateway';
import { nonNegativeInteger, positiveInteger, quota } from '../options.ts';

function port(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return Number(value);
}

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Serve /v1 over HTTP from the published snapshots and the SQLite database')
    .option('--port <n>', 'port to listen on', port, 8787)
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--snapshots <location>', 'snapshot location: a folder, or s3://bucket/prefix', 'snapshots')
    .option('--db <file>', 'SQLite database (keys, decks)', 'data/snapdeck.db')
    .option('--cache-mb <n>', 'memory for cached pages and cards, in MiB', positiveInteger, 128)
    .option('--address-quota <n>', 'requests per 15-minute window per client address for GET /v1/decks/{deckId} (no key)', quota, 3000)
    .addOption(
      new Option(
        '--trust-proxy [hops]',
        'the gateway sits behind this many proxies you trust (default 1 when given without a number): the client address for the per-address limit is the Nth X-Forwarded-For entry from the right, the one your nearest proxy appended',
      )
        .argParser(nonNegativeInteger)
        .preset(1),
    )
    .option('--redis <url>', 'share quotas across gateway processes through Redis (redis://host:6379); while it is unreachable each process counts alone')
    .option('--deprecations <file>', 'JSON array of {method?, path, announcedAt, sunsetAt, link}: routes that answer with Deprecation, Sunset and Link headers')
    .addHelpText(
      'after',
      `
A newly built version becomes the one served within a second, without a restart. SIGTERM or
Ctrl-C stops accepting connections and lets in-flight requests finish. --port 0 picks a free
port; the URL is printed on stderr either way. Also served: GET /healthz, /readyz, /metrics, and
the API reference at /docs.
LOG_LEVEL (default info; silent turns the JSON access log off) sets what is logged on stdout.

Example:
  npx snapdeck serve --port 8787 --snapshots snapshots --db data/snapdeck.db`,
    )
    .action(async (options: { port: number; host: string; snapshots: string; db: string; cacheMb: number; addressQuota: number; trustProxy?: number; redis?: string; deprecations?: string }) => {
      // A wrong file stops the start-up with the problems listed (main.ts prints the message).
      const deprecations: Deprecation[] | undefined = options.deprecations ? await loadDeprecations(options.deprecations) : undefined;
      const gateway = await startGateway({
        port: options.port,
        host: options.host,
        snapshots: options.snapshots,
        db: options.db,
        cacheBytes: options.cacheMb * 1024 * 1024,
        addressQuota: options.addressQuota,
        trustProxy: options.trustProxy ?? 0,
        redis: options.redis,
        deprecations,
      });
      console.error(
        `snapdeck gateway listening on ${gateway.url}/v1 (snapshots: ${options.snapshots}, db: ${options.db}` +
          `${options.redis ? `, quota: ${redactRedisUrl(options.redis)}` : ''}${deprecations?.length ? `, ${deprecations.length} deprecated route(s)` : ''})`,
      );
      const stop = (signal: string) => {
        console.error(`${signal}: finishing in-flight requests, then stopping`);
        gateway.close().then(() => process.exit(0), () => process.exit(1));
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
}
