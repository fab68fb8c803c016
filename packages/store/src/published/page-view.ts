import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { Db } from '../db/database.ts';
import { heldDescriptor } from '../db/held-files.ts';
import type { WalFilesOf, WalState } from '../db/wal-follow.ts';
import { framePageOffset } from '../db/wal.ts';
import { WRITER_ONLY_TABLES } from './parts.ts';

/**
 * The decks part as the writer publishes it, page by page, read straight from the writer database
 * while its write lock is held (docs/contributors/store-format.md, "How the writer finds its
 * changed pages"): each page as SQLite's readers see it (its newest committed frame in the WAL,
 * else the database file), except
 *
 * - the pages of the writer-only tables (WRITER_ONLY_TABLES: keys, tokens, publication records)
 *   and of their indexes, overflow pages included: each b-tree's root becomes an empty leaf of its
 *   kind (the tables stay, empty, for `store restore`), every other page is published as zeros
 *   and put on the free-list, as trunk pages (lists of free pages) and leaves;
 * - page 1 (the header): rollback-journal mode (the part is opened read-only, without a WAL), its
 *   size in pages, and a free-list that starts with those pages and goes on with the database's own.
 *
 * A published page is therefore a function of the database page, what that page belongs to, and
 * (for page 1 and the trunk pages) the set of writer-only pages: a page that no frame touched and
 * whose owner did not change is published as it was. Not one byte of a writer-only row is read
 * into the part, deleted or not (the database itself runs with secure_delete).
 */
export interface PagedView {
  pageSize: number;
  pageCount: number;
  /** Pages of writer-only b-trees, ascending. */
  writerOnly: Uint32Array;
  /** The published content of page `pgno` (1-based). */
  page(pgno: number): Buffer;
  /** Pages first..first+count-1 into `out`: one read of the database file, then the pages that differ from it. */
  block(first: number, count: number, out: Buffer): void;
  close(): void;
}

/** Roots and pages of the writer-only b-trees, from SQLite's own b-tree walk (the dbstat table). */
function writerOnlyPages(db: Db): { roots: number[]; pages: Uint32Array } {
  const tables = WRITER_ONLY_TABLES.map((table) => `'${table}'`).join(', ');
  const trees = db.prepare<[], { name: string; rootpage: number }>(`SELECT name, rootpage FROM sqlite_schema WHERE tbl_name IN (${tables}) AND type IN ('table', 'index') AND rootpage > 0`).all();
  const pageOf = db.prepare<[string], number>('SELECT pageno FROM dbstat WHERE name = ?').pluck();
  const pages = new Set<number>();
  for (const tree of trees) {
    pages.add(tree.rootpage);
    for (const page of pageOf.all(tree.name)) pages.add(page);
  }
  return { roots: trees.map((tree) => tree.rootpage), pages: Uint32Array.from([...pages].sort((a, b) => a - b)) };
}

export function openPagedView(db: Db, files: WalFilesOf, wal: WalState): PagedView {
  // The wal-index header names a page size only once the log holds a frame: ask SQLite.
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pageCount = db.pragma('page_count', { simple: true }) as number;
  if (wal.header.mxFrame > 0 && wal.header.pageSize !== pageSize) throw new Error(`the WAL says pages of ${wal.header.pageSize} bytes, SQLite ${pageSize}`);
  if (wal.header.mxFrame > 0 && wal.header.nPage !== pageCount) throw new Error(`the WAL says ${wal.header.nPage} pages, SQLite ${pageCount}`);
  const latest = new Map<number, number>();
  wal.frames.pages.forEach((pgno, i) => latest.set(pgno, i + 1));
  const mainFd = heldDescriptor(files.main);
  if (mainFd === null) throw new Error(`${files.main} is gone`);
  const walFd = wal.header.mxFrame > 0 ? openSync(files.wal, 'r') : -1;
  const mainSize = fstatSync(mainFd).size;
  const raw = (pgno: number): Buffer => {
    const page = Buffer.alloc(pageSize);
    const frame = latest.get(pgno);
    const [fd, at] = frame !== undefined ? [walFd, framePageOffset(frame, pageSize)] : [mainFd, (pgno - 1) * pageSize];
    if (frame === undefined && at >= mainSize) return page; // never written (the lock-byte page): zeros, as SQLite reads it
    for (let done = 0; done < pageSize; ) {
      const got = readSync(fd, page, done, pageSize - done, at + done);
      if (got === 0) throw new Error(`page ${pgno} is cut short`);
      done += got;
    }
    return page;
  };

  const reserved = raw(1)[20]!;
  const usable = pageSize - reserved;
  const { roots, pages: writerOnly } = writerOnlyPages(db);
  const rootSet = new Set(roots);
  const freed = [...writerOnly].filter((pgno) => !rootSet.has(pgno));
  // Trunk pages (each listing up to usable/4 - 8 leaves, as SQLite itself fills them) and leaves.
  const perTrunk = usable / 4 - 8;
  const trunks = new Map<number, number[]>();
  for (let at = 0; at < freed.length; at += perTrunk + 1) trunks.set(freed[at]!, freed.slice(at + 1, at + 1 + perTrunk));
  const trunkList = [...trunks.keys()];
  const secret = new Set(writerOnly);

  const view: PagedView = {
    pageSize,
    pageCount,
    writerOnly,
    page(pgno) {
      if (pgno === 1) {
        const page = raw(1);
        const dbFirstTrunk = page.readUInt32BE(32);
        page[18] = 1; // file format write / read version: rollback journal, not WAL
        page[19] = 1;
        page.writeUInt32BE(pageCount, 28);
        page.writeUInt32BE(page.readUInt32BE(24), 92); // the in-header size is valid
        page.writeUInt32BE(trunkList.length > 0 ? trunkList[0]! : dbFirstTrunk, 32);
        page.writeUInt32BE(page.readUInt32BE(36) + freed.length, 36);
        return page;
      }
      if (!secret.has(pgno)) return raw(pgno);
      const page = Buffer.alloc(pageSize);
      if (rootSet.has(pgno)) {
        // An empty leaf of the root's kind (0x0d table, 0x0a index), as SQLite writes one.
        const kind = raw(pgno)[0]!;
        page[0] = kind === 0x05 || kind === 0x0d ? 0x0d : 0x0a;
        page.writeUInt16BE(usable % 65536, 5);
        return page;
      }
      const leaves = trunks.get(pgno);
      if (leaves) {
        const index = trunkList.indexOf(pgno);
        const next = index + 1 < trunkList.length ? trunkList[index + 1]! : raw(1).readUInt32BE(32);
        page.writeUInt32BE(next, 0);
        page.writeUInt32BE(leaves.length, 4);
        leaves.forEach((leaf, i) => page.writeUInt32BE(leaf, 8 + 4 * i));
      }
      return page;
    },
    block(first, count, out) {
      const length = count * pageSize;
      out.fill(0, 0, length);
      const start = (first - 1) * pageSize;
      const have = Math.max(0, Math.min(length, mainSize - start));
      for (let done = 0; done < have; ) {
        const got = readSync(mainFd, out, done, have - done, start + done);
        if (got === 0) break;
        done += got;
      }
      for (let pgno = first; pgno < first + count; pgno++) {
        if (pgno === 1 || secret.has(pgno) || latest.has(pgno)) view.page(pgno).copy(out, (pgno - first) * pageSize);
      }
    },
    close() {
      // The main file's descriptor stays open (held-files.ts); the -wal file carries no SQLite lock.
      if (walFd >= 0) closeSync(walFd);
    },
  };
  return view;
}
