import { VERSION_PATTERN, layout } from '../layout.ts';
import type { StorageDriver } from '../storage/driver.ts';

/** One listing of a game's versions: when it was asked for, and the names it found. */
interface Listing {
  startedAt: number;
  found: Promise<{ names: ReadonlySet<string>; newest: string }>;
}

/**
 * Which versions of each game exist, from one listing of `<game>/versions/` at a time (a few
 * hundred keys: some twenty files a kept version), so that a request naming a version nobody built
 * costs a set lookup, not a storage request: such names are free to make up, and anyone can send
 * them without a key.
 *
 * A listing is trusted for `recheckMs` for versions older than the newest it found (a version is
 * named by the time its build started, so an older one does not appear later). A name newer than
 * all of them may be a version published since: it waits for a listing asked for after it arrived.
 * Listings start at most once per `minGapMs` per game, however many requests wait for one.
 */
export class VersionListing {
  private readonly listings = new Map<string, Listing>();
  private readonly next = new Map<string, Listing>();

  constructor(
    private readonly driver: StorageDriver,
    private readonly recheckMs: number,
    private readonly minGapMs = Math.min(recheckMs, 250),
  ) {}

  /** Whether `version` of `game` is in storage now, as far as listings made late enough tell. */
  async has(game: string, version: string): Promise<boolean> {
    const arrived = Date.now();
    let listing = this.listings.get(game);
    for (;;) {
      if (listing) {
        const { names, newest } = await listing.found;
        if (names.has(version)) return true;
        const needed = version > newest ? arrived : arrived - this.recheckMs;
        if (listing.startedAt >= needed) return false;
      }
      listing = await this.listingAfter(game, listing?.startedAt ?? -Infinity);
    }
  }

  /** A listing started after `after`: the one under way or scheduled, else a new one, spaced by minGapMs. */
  private async listingAfter(game: string, after: number): Promise<Listing> {
    const scheduled = this.next.get(game);
    if (scheduled && scheduled.startedAt > after) {
      await scheduled.found.catch(() => {});
      return scheduled;
    }
    const last = this.listings.get(game)?.startedAt ?? -Infinity;
    const startAt = Math.max(Date.now(), last + this.minGapMs, after + 1);
    const found = (async () => {
      const wait = startAt - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      return this.list(game);
    })();
    const listing: Listing = { startedAt: startAt, found };
    this.next.set(game, listing);
    try {
      await found;
      if ((this.listings.get(game)?.startedAt ?? -Infinity) < startAt) this.listings.set(game, listing);
      return listing;
    } finally {
      if (this.next.get(game) === listing) this.next.delete(game);
    }
  }

  private async list(game: string): Promise<{ names: ReadonlySet<string>; newest: string }> {
    const prefix = layout.versionsPrefix(game);
    const names = new Set<string>();
    let newest = '';
    for (const key of await this.driver.list(prefix)) {
      const name = key.slice(prefix.length, key.indexOf('/', prefix.length));
      if (!VERSION_PATTERN.test(name)) continue;
      names.add(name);
      if (name > newest) newest = name;
    }
    return { names, newest };
  }
}
