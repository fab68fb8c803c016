import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../hash.ts';
import { PACK_SEARCH, SEARCH_TABLE_FILE, layout, type Encoding } from '../layout.ts';
import type { SnapshotReader } from '../reader/reader.ts';
import type { Body } from '../reader/version.ts';
import { ObjectNotFoundError } from '../storage/driver.ts';
import { decodeSearchTable, type SearchTable, type SearchTableFile } from './table.ts';

/** A version's search table, with its files by path. */
export interface LoadedSearchTable extends SearchTable {
  game: string;
  version: string;
  byPath: Map<string, SearchTableFile>;
}

/** A file of a search index, ready to send. */
export interface SearchFileBody extends Body {
  contentType: string;
}

const CONTENT_TYPES: ReadonlyArray<[RegExp, string]> = [
  [/\.js$/, 'text/javascript; charset=utf-8'],
  [/\.json$/, 'application/json'],
];
const contentTypeOf = (path: string) => CONTENT_TYPES.find(([pattern]) => pattern.test(path))?.[1] ?? 'application/octet-stream';

/**
 * The gateway's view of the versions' search indexes (search/write.ts wrote them): each version's
 * `search.bin`, checked against its manifest and kept (a few versions), and each file read as a
 * byte range of the search pack through the reader's range cache. A version that is not kept
 * (never built, deleted by gc) or was built without an index has none: null.
 */
export class SearchIndexes {
  private readonly tables = new LRUCache<string, Promise<LoadedSearchTable | null>>({ max: 8 });

  constructor(private readonly reader: SnapshotReader) {}

  /** The search table of a version, or null when that version or its index does not exist. */
  async table(game: string, version: string): Promise<LoadedSearchTable | null> {
    const loaded = await this.reader.version(game, version);
    if (!loaded) return null;
    const key = `${game}/${version}`;
    let table = this.tables.get(key);
    if (!table) {
      table = this.load(game, version, loaded.manifest.files[SEARCH_TABLE_FILE]?.sha256);
      this.tables.set(key, table);
      table.catch(() => this.tables.get(key) === table && this.tables.delete(key));
    }
    return table;
  }

  /** One file of a version's index, in `encoding` when stored so (text files), else identity; null when absent. */
  async file(game: string, version: string, path: string, encoding: Encoding): Promise<SearchFileBody | null> {
    const table = await this.table(game, version);
    const file = table?.byPath.get(path);
    if (!file) return null;
    const chosen: Encoding = file.forms[encoding] ? encoding : 'identity';
    const [segment, offset, length] = file.forms[chosen]!;
    try {
      const bytes = await this.reader.ranges.read(layout.file(game, version, layout.segment(PACK_SEARCH, chosen, segment)), offset, length);
      return { bytes, etag: file.etag, encoding: chosen, contentType: contentTypeOf(path) };
    } catch (error) {
      // Deleted by gc after the table was loaded: the version is no longer kept.
      if (error instanceof ObjectNotFoundError) return null;
      throw error;
    }
  }

  private async load(game: string, version: string, sha256: string | undefined): Promise<LoadedSearchTable | null> {
    if (sha256 === undefined) return null; // a version built before search indexes existed
    const object = await this.reader.driver.get(layout.file(game, version, SEARCH_TABLE_FILE));
    if (!object || sha256Hex(object.body) !== sha256) return null;
    const table = decodeSearchTable(object.body);
    return { ...table, game, version, byPath: new Map(table.files.map((file) => [file.path, file])) };
  }
}
