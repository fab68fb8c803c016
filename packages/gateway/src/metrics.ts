import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SnapshotReader } from '@snapdeck/snapshot';
import type { StoreSource } from '@snapdeck/store';
import { buildInfo } from './build-info.ts';
import { CatalogChecks } from './catalog-checks.ts';
import type { RequestObserver, RouteObserver } from './middleware/access-log.ts';
import type { QuotaCounter } from './quota/counter.ts';
import type { StorageHealth } from './storage-health.ts';

/** Requests answered with one status on one route, counted here and added to the counter when scraped. */
interface Answered {
  labels: { route: string; status: string };
  count: number;
  counted: number;
}

/** Durations a route gathers before its histogram observes them (bounded: memory is 8 bytes each). */
export const DURATIONS_OBSERVED_TOGETHER = 256;

/**
 * The gateway's Prometheus metrics, in a registry of its own (not prom-client's global one, so
 * several gateways in one process do not share counters). Per request, fed by the access log
 * (middleware/access-log.ts): the duration pushed to the route's list, which the histogram takes
 * up DURATIONS_OBSERVED_TOGETHER at a time or when /metrics is scraped, and one increment of a
 * plain number, which snapdeck_http_requests_total takes up when scraped (their collect
 * callbacks, as the snapshot figures below). prom-client's increment checks and hashes the labels
 * each time, for a series known when the route is registered; its observation walks the buckets,
 * with code and data cold after the answer's write, as the access log's line (log.ts LINES_FORMATTED_TOGETHER).
 * Every scrape shows every answer given before it. Snapshot
 * cache and version figures are read when scraped too, never on the request path;
 * routes/metrics.ts serves them.
 */
export class GatewayMetrics implements RequestObserver {
  readonly registry = new Registry();
  private readonly duration: Histogram<'route'>;
  /** Every (route, status) answered at least once, in the order first seen. */
  private readonly answered: Answered[] = [];
  /** Each route's durations not observed yet, handed to the histogram (see above). */
  private readonly unobserved: Array<() => void> = [];

  constructor(snapshots: SnapshotReader, quota?: QuotaCounter, store?: StoreSource, storage?: StorageHealth) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    const answered = this.answered;
    new Counter({
      name: 'snapdeck_http_requests_total',
      help: 'HTTP requests answered, by route pattern (unmatched: no route) and status',
      labelNames: ['route', 'status'] as const,
      registers,
      collect() {
        for (const series of answered) {
          if (series.count > series.counted) this.inc(series.labels, series.count - series.counted);
          series.counted = series.count;
        }
      },
    });
    this.duration = new Histogram({
      name: 'snapdeck_http_request_duration_seconds',
      help: 'Time from receiving a request to its response being ready, by route pattern',
      labelNames: ['route'] as const,
      // Up to a minute: a request stalled on storage must show, not vanish above the last bucket.
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
      collect: () => this.unobserved.forEach((observe) => observe()),
    });
    const info = buildInfo();
    new Gauge({
      name: 'snapdeck_build_info',
      help: 'What is running (value 1): the snapdeck version, the commit of its checkout and the Node.js version',
      labelNames: ['version', 'commit', 'node'] as const,
      registers,
    }).set({ version: info.version, commit: info.commit, node: info.node }, 1);
    const checks = new CatalogChecks(snapshots.driver);
    new Gauge({
      name: 'snapdeck_catalog_checked_timestamp_seconds',
      help: "When a build last checked the game's catalog (epoch seconds), whether or not it changed; read from the snapshot location",
      labelNames: ['game'] as const,
      registers,
      async collect() {
        for (const [game, seconds] of await checks.current()) this.set({ game }, seconds);
      },
    });
    if (storage) {
      new Counter({
        name: 'snapdeck_storage_errors_total',
        help: 'Failed storage calls (no answer within the storage timeout, unreachable, refused), by location role (snapshots, store) and operation',
        labelNames: ['storage', 'operation'] as const,
        registers,
        collect() {
          this.reset();
          // Present from the start, so that rate() sees the first failures.
          for (const operation of ['get', 'getRange', 'head', 'list']) this.inc({ storage: 'snapshots', operation }, 0);
          for (const { role, operation, count } of storage.errorCounts()) this.inc({ storage: role, operation }, count);
        },
      });
    }
    // Counters of the snapshot store's own tallies, brought up to date when scraped.
    const storeCounter = (name: string, help: string, read: () => number) => {
      let seen = 0;
      new Counter({
        name,
        help,
        registers,
        collect() {
          const now = read();
          if (now > seen) this.inc(now - seen);
          seen = now;
        },
      });
    };
    storeCounter('snapdeck_snapshot_cache_hits_total', 'Snapshot byte ranges served from the in-memory cache', () => snapshots.stats.hits);
    storeCounter('snapdeck_snapshot_cache_misses_total', 'Snapshot byte ranges read from storage', () => snapshots.stats.misses);
    new Gauge({
      name: 'snapdeck_snapshot_version',
      help: 'The snapshot version currently served per game (value 1, the version is a label)',
      labelNames: ['game', 'version'] as const,
      registers,
      collect() {
        this.reset();
        for (const [game, version] of Object.entries(snapshots.loadedVersions())) this.set({ game, version }, 1);
      },
    });
    if (store && store.status().mode === 'store') {
      new Gauge({
        name: 'snapdeck_store_version',
        help: 'The published store version served (value 1; `version` names its keys and tokens, `decks_version` its decks)',
        labelNames: ['version', 'decks_version'] as const,
        registers,
        collect() {
          this.reset();
          const status = store.status();
          if (status.version) this.set({ version: status.version, decks_version: status.decksVersion ?? '' }, 1);
        },
      });
      storeCounter(
        'snapdeck_store_refused_pointers_total',
        'Distinct store pointers refused because they name a version older than (or unrelated to) one this gateway has served',
        () => store.status().refusedPointers,
      );
      storeCounter(
        'snapdeck_store_downloaded_bytes_total',
        'Bytes of published store parts downloaded (a deck change costs its page deltas, a first start the whole store)',
        () => store.status().downloadedBytes ?? 0,
      );
      new Gauge({
        name: 'snapdeck_store_pointer_refused',
        help: '1 while the store pointer names a version this gateway refuses (it keeps serving its own), else 0',
        registers,
        collect() {
          this.set(store.status().refused ? 1 : 0);
        },
      });
      new Gauge({
        name: 'snapdeck_store_age_seconds',
        help: 'Seconds since storage last confirmed that the served store version is current (grows while storage is unreachable); -1 before any version is loaded',
        registers,
        collect() {
          this.set(store.status().ageSeconds ?? -1);
        },
      });
    }
    // Only a counter shared across processes can be degraded (quota/counter.ts).
    if (quota?.degraded !== undefined) {
      new Gauge({
        name: 'snapdeck_quota_degraded',
        help: '1 while Redis is unreachable, or its clock is ahead of this host\'s, and quotas are counted per process, else 0',
        registers,
        collect() {
          this.set(quota.degraded ? 1 : 0);
        },
      });
    }
  }

  route(route: string): RouteObserver {
    const duration = this.duration.labels(route);
    const durations: number[] = [];
    const observe = () => {
      for (const seconds of durations) duration.observe(seconds);
      durations.length = 0;
    };
    this.unobserved.push(observe);
    // Indexed by status; a series exists from the first answer with that status, as before.
    const byStatus: Answered[] = [];
    return {
      observe: (status, seconds) => {
        let series = byStatus[status];
        if (series === undefined) {
          series = { labels: { route, status: String(status) }, count: 0, counted: 0 };
          byStatus[status] = series;
          this.answered.push(series);
        }
        series.count++;
        if (durations.push(seconds) >= DURATIONS_OBSERVED_TOGETHER) observe();
      },
    };
  }
}
