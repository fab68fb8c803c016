import { LRUCache } from 'lru-cache';
import type { Encoding } from '../layout.ts';
import { SnapshotError } from '../reader/errors.ts';
import type { SnapshotReader } from '../reader/reader.ts';
import type { Body, SnapshotVersion } from '../reader/version.ts';
import { compressBrotli, compressGzip, contentTag } from '../render.ts';
import { encodeChangesCursor, parseChangesCursor } from './cursor.ts';
import { changeRecordKey, changeRecordSchema, changesPrefix, recordVersion, type ChangeRecord } from './layout.ts';
import { chainBetween, netChanges, type NetChanges } from './net.ts';

/** What a request for a page of changes gets: its body, or why there is none. */
export type ChangesPage = { ok: true; body: Body } | { ok: false; reason: 'gone' | 'invalidCursor' };

const GONE: ChangesPage = { ok: false, reason: 'gone' };
const INVALID: ChangesPage = { ok: false, reason: 'invalidCursor' };

/**
 * The gateway's reading of change records (decisions.md "Card changes"): the net change from a
 * version to the current one, paged by a cursor pinned to that current version like a walk.
 *
 * Cost: which records exist is one listing of `<game>/changes/` per `recheckMs` (so a record gc
 * removed stops counting within that time); each record is read once and kept (they never
 * change); a `since` k versions back follows k records. The net change of a (since, to) pair and
 * each rendered page are kept too (pages in the reader's byte cache, like card pages).
 */
export class ChangeFeed {
  private readonly records = new LRUCache<string, ChangeRecord>({ max: 1024 });
  private readonly listings = new Map<string, { at: number; versions: Promise<Set<string>> }>();
  private readonly nets = new LRUCache<string, NetChanges>({ max: 256 });

  constructor(private readonly reader: SnapshotReader, private readonly recheckMs = 1000) {}

  /** The first page of the net change from `since` to `current`, or 'gone' (410). */
  async firstPage(current: SnapshotVersion, since: string, limit: number, encoding: Encoding): Promise<ChangesPage> {
    const net = await this.net(current.game, since, current.version);
    if (!net) return GONE;
    return { ok: true, body: await this.page(current, since, net, limit, 0, encoding) };
  }

  /**
   * A later page, from its cursor: valid only for this game, `since` and `limit`, while the
   * version it is pinned to and the records between are kept; anything else is 'invalidCursor'.
   */
  async pageAt(token: string, game: string, since: string, limit: number, encoding: Encoding): Promise<ChangesPage> {
    const claimed = parseChangesCursor(token);
    if (!claimed || claimed.game !== game || claimed.since !== since || claimed.limit !== limit) return INVALID;
    const key = await this.reader.cursorKeys.keyFor(game, claimed.to);
    if (!key || !claimed.verify(key)) return INVALID;
    const version = await this.reader.version(game, claimed.to);
    if (!version) return INVALID;
    const net = await this.net(game, since, claimed.to);
    if (!net || claimed.offset >= net.ids.length) return INVALID;
    return { ok: true, body: await this.page(version, since, net, limit, claimed.offset, encoding) };
  }

  private async net(game: string, since: string, to: string): Promise<NetChanges | null> {
    if (since === to) return { ids: [], upsert: [] };
    const kept = await this.kept(game);
    const chain = await chainBetween(since, to, (version) => (kept.has(version) ? this.record(game, version) : null));
    if (!chain) return null;
    const id = `${game}|${since}|${to}`;
    let net = this.nets.get(id);
    if (!net) this.nets.set(id, (net = netChanges(chain)));
    return net;
  }

  /** Versions of `game` with a change record, listed at most once per recheckMs. */
  private kept(game: string): Promise<Set<string>> {
    const listed = this.listings.get(game);
    if (listed && Date.now() - listed.at < this.recheckMs) return listed.versions;
    const versions = this.reader.driver.list(changesPrefix(game)).then((keys) => new Set(keys.map((key) => recordVersion(game, key)).filter((v) => v !== null)));
    const entry = { at: Date.now(), versions };
    this.listings.set(game, entry);
    versions.catch(() => this.listings.get(game) === entry && this.listings.delete(game));
    return versions;
  }

  private async record(game: string, version: string): Promise<ChangeRecord | null> {
    const id = `${game}/${version}`;
    const cached = this.records.get(id);
    if (cached) return cached;
    const object = await this.reader.driver.get(changeRecordKey(game, version));
    if (!object) return null;
    const record = changeRecordSchema.parse(JSON.parse(Buffer.from(object.body).toString('utf8')));
    if (record.game !== game || record.version !== version) throw new SnapshotError(`${changeRecordKey(game, version)} describes ${record.game}/${record.version}`);
    this.records.set(id, record);
    return record;
  }

  /** One page, rendered once per (since, to, limit, offset) and encoding, then cached. */
  private async page(version: SnapshotVersion, since: string, net: NetChanges, limit: number, offset: number, encoding: Encoding): Promise<Body> {
    const { game } = version;
    const to = version.version;
    const coordinates = `${game}/${to}/changes/${since}/${limit}/${offset}`;
    const etag = contentTag(`changes|${coordinates}`);
    const identity = () => this.reader.ranges.shared(`${coordinates}/identity`, () => this.render(version, since, net, limit, offset));
    const bytes = await this.reader.ranges.shared(`${coordinates}/${encoding}`, async () => {
      if (encoding === 'identity') return this.render(version, since, net, limit, offset);
      const plain = await identity();
      return encoding === 'br' ? compressBrotli(plain) : compressGzip(plain);
    });
    return { bytes, etag, encoding };
  }

  private async render(version: SnapshotVersion, since: string, net: NetChanges, limit: number, offset: number): Promise<Buffer> {
    const end = Math.min(net.ids.length, offset + limit);
    const hits = await Promise.all(net.ids.slice(offset, end).map((id, i) => (net.upsert[offset + i] ? version.hit(id) : null)));
    const parts: Buffer[] = [];
    for (let i = offset; i < end; i++) {
      const id = JSON.stringify(net.ids[i]);
      const hit = hits[i - offset];
      if (net.upsert[i] && !hit) throw new SnapshotError(`${version.game}/${version.version}: card ${net.ids[i]} is upserted by its change records but not in the version`);
      if (parts.length > 0) parts.push(Buffer.from(','));
      parts.push(hit ? Buffer.concat([Buffer.from(`{"cardId":${id},"change":"upsert","hit":`), hit, Buffer.from('}')]) : Buffer.from(`{"cardId":${id},"change":"delete"}`));
    }
    const next = end < net.ids.length ? await this.cursorFor(version, since, limit, end) : null;
    const head = `{"data":{"fromVersion":${JSON.stringify(since)},"toVersion":${JSON.stringify(version.version)},"changes":[`;
    return Buffer.concat([Buffer.from(head), ...parts, Buffer.from(`],"cursor":${next === null ? 'null' : JSON.stringify(next)}}}`)]);
  }

  private async cursorFor(version: SnapshotVersion, since: string, limit: number, offset: number): Promise<string> {
    const key = await this.reader.cursorKeys.keyFor(version.game, version.version);
    if (!key) throw new SnapshotError(`${this.reader.driver.location} has no secret to sign cursors with`);
    return encodeChangesCursor(key, { game: version.game, since, to: version.version, limit, offset });
  }
}
