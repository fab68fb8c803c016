import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { HITS_PER_PAGE } from '@snapdeck/contract';
import { SHA256_HEX_PATTERN } from './hash.ts';

/**
 * Where each file of a snapshot lives, relative to the storage root:
 *
 *   <game>/current.json                      pointer to the current version (written last)
 *   <game>/versions/<version>/manifest.json  what the version holds, with a checksum per file
 *   <game>/versions/<version>/index.bin      offsets of every entry of every pack (msgpack)
 *   <game>/versions/<version>/<pack>.<encoding>.<segment>
 *   <game>/versions/<version>/search.bin     the search index: its files and where each is packed (search/)
 *   _snapdeck/secret                         the location's secret (cursor keys derive from it)
 *   _snapdeck/builds/<game>/<build hash>.json claim: the version id of one build's input
 *   _snapdeck/checked/<game>.json            when a build last checked the game's catalog (catalog-check.ts)
 *
 * A pack is a sequence of entries (card bodies, page bodies, hits) stored back to back in
 * segments of bounded size, so no file has to fit in memory whole and uploads can resume.
 */
export const layout = {
  pointer: (game: string) => `${game}/current.json`,
  versionsPrefix: (game: string) => `${game}/versions/`,
  versionPrefix: (game: string, version: string) => `${game}/versions/${version}/`,
  manifest: (game: string, version: string) => `${game}/versions/${version}/manifest.json`,
  file: (game: string, version: string, name: string) => `${game}/versions/${version}/${name}`,
  segment: (pack: string, encoding: Encoding, segment: number) => `${pack}.${encoding}.${segment}`,
};

export const ENCODINGS = ['identity', 'br', 'gzip'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** Versions sort by time: 2026-11-22T11-05-12-345Z-1a2b3c. */
export const VERSION_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-[0-9a-f]{6}$/;

/** A version id for `now`; the six hex digits are random unless `suffix` gives them. */
export function newVersionId(now = new Date(), suffix?: string): string {
  return `${now.toISOString().replace(/[:.]/g, '-')}-${suffix ?? randomBytes(3).toString('hex')}`;
}

/** The time a version id names, or null when it is not a version id. */
export function versionTime(version: string): Date | null {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-[0-9a-f]{6}$/.exec(version);
  if (!match) return null;
  const time = new Date(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`);
  return Number.isNaN(time.getTime()) ? null : time;
}

/** A version id later than `base` (a clock behind the current version's must not go back). */
export function versionIdAfter(base: string | null, suffix?: string): string {
  let time = Date.now();
  const baseTime = base ? versionTime(base) : null;
  if (baseTime && baseTime.getTime() >= time) time = baseTime.getTime() + 1;
  return newVersionId(new Date(time), suffix);
}

export const pointerSchema = z.object({
  version: z.string().regex(VERSION_PATTERN),
  publishedAt: z.string(),
});
export type Pointer = z.infer<typeof pointerSchema>;

export const manifestSchema = z.object({
  format: z.literal(1),
  game: z.string(),
  version: z.string().regex(VERSION_PATTERN),
  createdAt: z.string(),
  totalHits: z.number().int().nonnegative(),
  /** hitsPerPage values whose pages are pre-rendered (others are assembled from the hits pack). */
  hitsPerPage: z.array(z.number().int().min(HITS_PER_PAGE.min).max(HITS_PER_PAGE.max)),
  /** Key that signs this version's cursors (base64url). Operator-private like the rest of storage. */
  cursorKey: z.string().min(16),
  /** Every other file of the version, with its size and SHA-256. */
  files: z.record(z.string(), z.object({ size: z.number().int().nonnegative(), sha256: z.string().regex(SHA256_HEX_PATTERN) })),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** Per-location secret from which every version's cursor key is derived; never served. */
export const LOCATION_SECRET_KEY = '_snapdeck/secret';

/** Claims: build hash → version id, per game (gc removes those of deleted versions). */
export const buildClaimsPrefix = (game: string) => `_snapdeck/builds/${game}/`;
export const claimKey = (game: string, buildHash: string) => `${buildClaimsPrefix(game)}${buildHash}.json`;

/** The last build's check of a game's catalog, rewritten by every build, changed or not (gc leaves it). */
export const catalogCheckKey = (game: string) => `_snapdeck/checked/${game}.json`;

export const INDEX_FILE = 'index.bin';
export const PACK_CARDS = 'cards';
export const PACK_HITS = 'hits';
export const pagesPack = (hitsPerPage: number) => `pages-${hitsPerPage}`;

/** Pre-rendered unless the operator chooses: the contract's default page size, 100, and its largest. */
export const DEFAULT_HITS_PER_PAGE = [HITS_PER_PAGE.default, 100, HITS_PER_PAGE.max] as const;
export const DEFAULT_SEGMENT_BYTES = 16 * 1024 * 1024;

/** A version's search index (search/): the table of its files, and the pack holding them. */
export const SEARCH_TABLE_FILE = 'search.bin';
export const PACK_SEARCH = 'search';
