import { GAME_SLUGS } from '@snapdeck/contract';
import { readCatalogCheck, type StorageDriver } from '@snapdeck/snapshot';

/**
 * When a build last checked each game's catalog (snapshot's catalog-check.ts), for the
 * snapdeck_catalog_checked_timestamp_seconds metric: read from storage when scraped, at most every
 * `ttlMs`. Only the first scrape waits for the read; later ones get the last figures while a
 * refresh runs, so a stalled store never slows /metrics down more than once.
 */
export class CatalogChecks {
  private readonly checkedAt = new Map<string, number>();
  private readAt = -Infinity;
  private reading: Promise<void> | null = null;

  constructor(private readonly storage: StorageDriver, private readonly ttlMs = 30_000) {}

  /** Epoch seconds of each game's last check (games never checked are absent). */
  async current(): Promise<ReadonlyMap<string, number>> {
    if (Date.now() - this.readAt >= this.ttlMs && !this.reading) {
      const first = this.readAt === -Infinity;
      this.reading = this.read().finally(() => (this.reading = null));
      if (first) await this.reading;
    }
    return this.checkedAt;
  }

  private async read(): Promise<void> {
    await Promise.all(
      GAME_SLUGS.map(async (game) => {
        try {
          const check = await readCatalogCheck(this.storage, game);
          if (check) this.checkedAt.set(game, Date.parse(check.checkedAt) / 1000);
        } catch {
          // Storage failures are counted and logged by the storage watcher; keep the last figure.
        }
      }),
    );
    this.readAt = Date.now();
  }
}
