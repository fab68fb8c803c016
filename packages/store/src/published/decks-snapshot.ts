import { closeSync, openSync, writeSync } from 'node:fs';
import { sha256Hex } from '@snapdeck/snapshot';
import type { Db } from '../db/database.ts';
import { CURRENT, PENDING, type PageLog } from '../db/page-log.ts';
import { catchUp, readWal, type WalFilesOf } from '../db/wal-follow.ts';
import type { PartRef } from './layout.ts';
import { hashPage, pageRoot } from './page-hashes.ts';
import { openPagedView } from './page-view.ts';
import { readGenerations } from './parts.ts';

/**
 * The two ways the writer takes its decks part from the database, both run holding its write lock
 * (decks-publish.ts; docs/contributors/store-format.md, "How the writer finds its changed pages"):
 *
 * - `changedPages`: only the pages that may differ from the part last published (the page log's
 *   dirty pages, read from the WAL; the writer-only pages of both; page 1 and any page past the old
 *   end), each hashed and compared with the published page's hash. Cost: what changed.
 * - `everyPage`: every page, written to a file and compared by hash with the part published (when
 *   the page log still has its hashes). The fallback, and how a part is first sent or rebased.
 *
 * Both record the result as the page log's pending baseline, current once the pointer moves.
 */
export interface DecksSnapshot {
  /** The decks generation the snapshot holds (read in it). */
  generation: number;
  pageSize: number;
  size: number;
  root: string;
  /** 0-based indexes of the pages that differ from `from`'s file (null: nothing to compare with). */
  changed: number[] | null;
  /** Page index → published content of the changed pages (changedPages only). */
  pages?: Map<number, Buffer>;
  /** The whole part, written (everyPage only), and its segments. */
  file?: string;
  segments?: PartRef['segments'];
}

const HASH = 32;

/** The pages since `from` (same page root as the log's baseline), or why they cannot be known. */
export function changedPages(db: Db, files: WalFilesOf, log: PageLog, from: PartRef | null): DecksSnapshot | { fallback: string } {
  const pending = log.baseline(PENDING);
  // A publish killed after its pointer moved left its baseline pending: it is the current part.
  if (pending && from && pending.root === from.sha256) log.promote(files.dir);
  else if (pending) log.dropPending();
  const wal = catchUp(log, files);
  const base = log.baseline(CURRENT);
  if (!from) return { fallback: 'nothing published yet' };
  if (!base || base.root !== from.sha256) return { fallback: 'the writer holds no record of the decks part published' };
  if (base.lost) return { fallback: base.lost };
  if (!wal) return { fallback: 'the WAL could not be read' };
  const view = openPagedView(db, files, wal);
  try {
    if (view.pageSize !== base.pageSize) return { fallback: 'the page size changed' };
    const candidates = new Set<number>([1, ...log.dirty(CURRENT), ...base.writerOnly, ...view.writerOnly]);
    for (let pgno = base.pageCount + 1; pgno <= view.pageCount; pgno++) candidates.add(pgno);
    // The published hashes, updated in place (one buffer: 27 MB at 3,000,000 decks).
    let hashes = log.hashes(base.pageCount);
    if (view.pageCount !== base.pageCount) {
      const resized = Buffer.alloc(view.pageCount * HASH);
      hashes.copy(resized, 0, 0, Math.min(hashes.length, resized.length));
      hashes = resized;
    }
    const pages = new Map<number, Buffer>();
    const changedHashes = new Map<number, Buffer>();
    const hash = Buffer.alloc(HASH);
    for (const pgno of candidates) {
      if (pgno > view.pageCount) continue;
      const n = pgno - 1;
      const page = view.page(pgno);
      hashPage(page, hash, 0);
      if (pgno <= base.pageCount && hash.equals(hashes.subarray(n * HASH, (n + 1) * HASH))) continue;
      hash.copy(hashes, n * HASH);
      pages.set(n, page);
      changedHashes.set(n, Buffer.from(hash));
    }
    const root = pageRoot(hashes);
    log.setPending({ root, pageSize: view.pageSize, pageCount: view.pageCount, writerOnly: view.writerOnly }, changedHashes, log.anchor()!);
    const changed = [...pages.keys()].sort((a, b) => a - b);
    return { generation: readGenerations(db).decks, pageSize: view.pageSize, size: view.pageCount * view.pageSize, root, changed, pages };
  } finally {
    view.close();
  }
}

/** Every page of the part, written to `file` in segments of `segmentBytes`, compared with the log's hashes of `from` when it has them. */
export function everyPage(db: Db, files: WalFilesOf, log: PageLog, from: PartRef | null, file: string, segmentBytes: number): DecksSnapshot {
  const pending = log.baseline(PENDING);
  if (pending && from && pending.root === from.sha256) log.promote(files.dir);
  catchUp(log, files, false);
  const base = log.baseline(CURRENT);
  const old = from && base && base.root === from.sha256 ? log.hashes(base.pageCount) : null;
  const view = openPagedView(db, files, readWal(files));
  const fd = openSync(file, 'w');
  try {
    const { pageSize, pageCount } = view;
    const hashes = Buffer.alloc(pageCount * HASH);
    const segments: PartRef['segments'] = [];
    const changed: number[] = [];
    const perSegment = segmentBytes / pageSize;
    const block = Buffer.alloc(segmentBytes);
    for (let first = 1; first <= pageCount; first += perSegment) {
      const count = Math.min(perSegment, pageCount - first + 1);
      view.block(first, count, block);
      for (let i = 0; i < count; i++) {
        const n = first + i - 1;
        hashPage(block.subarray(i * pageSize, (i + 1) * pageSize), hashes, n);
        if (old && (n * HASH >= old.length || !hashes.subarray(n * HASH, (n + 1) * HASH).equals(old.subarray(n * HASH, (n + 1) * HASH)))) changed.push(n);
      }
      const bytes = block.subarray(0, count * pageSize);
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, (first - 1) * pageSize + done);
      segments.push({ size: bytes.length, sha256: sha256Hex(bytes) });
    }
    if (segments.length === 0) segments.push({ size: 0, sha256: sha256Hex(Buffer.alloc(0)) });
    const root = pageRoot(hashes);
    log.setPending({ root, pageSize, pageCount, writerOnly: view.writerOnly }, hashes, log.anchor()!);
    return { generation: readGenerations(db).decks, pageSize, size: pageCount * pageSize, root, changed: old ? changed : null, file, segments };
  } finally {
    closeSync(fd);
    view.close();
  }
}
