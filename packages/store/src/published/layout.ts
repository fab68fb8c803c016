import { z } from 'zod';
import { SHA256_HEX_PATTERN, VERSION_PATTERN } from '@snapdeck/snapshot';

/**
 * The published store, beside card snapshots under the same LOCATION (games own `<slug>/`, the
 * card builder `_snapdeck/`; a slug never starts with '_', so nothing here collides):
 *
 *   _store/current.json                     pointer {version, publishedAt}, moved last with CAS
 *   _store/versions/<version>.json          manifest: the two parts that make this version, its
 *                                           sequence and store id (version-order.ts)
 *   _store/parts/<part>/<sha256>/<n>        segment n of a part's SQLite file (content-addressed)
 *   _store/parts/<part>/<sha256>/d-<sha256> a piece of a page delta on top of that file (decks)
 *   _store/gateways/<gateway-id>.json       what one following gateway serves (presence.ts); not
 *                                           part of any version: prune, gc and restore never read it
 *
 * Two parts, because they differ by orders of magnitude in size and rate of change:
 * - `auth`: API key hashes and deck token hashes (kilobytes to a few MB, changes often; a key
 *   created or revoked must be everywhere within 5 s);
 * - `decks`: the decks and their cards (hundreds of MB at a million decks, changes with imports).
 * A version names one file of each; a publish uploads only the part that changed (parts are
 * content-addressed, so an unchanged part is simply named again), and a gateway downloads only
 * the part it does not have. Files are split into segments of bounded size so that neither
 * side ever holds a whole part in memory, and each segment has its own SHA-256.
 */
export const STORE_PREFIX = '_store/';
export const storeLayout = {
  pointer: `${STORE_PREFIX}current.json`,
  manifest: (version: string) => `${STORE_PREFIX}versions/${version}.json`,
  versionsPrefix: `${STORE_PREFIX}versions/`,
  segment: (part: StorePart, sha256: string, n: number) => `${STORE_PREFIX}parts/${part}/${sha256}/${n}`,
  partPrefix: (part: StorePart, sha256: string) => `${STORE_PREFIX}parts/${part}/${sha256}/`,
  /** A piece of a page delta, beside the segments of the base file it applies to. */
  deltaPiece: (part: StorePart, baseSha256: string, pieceSha256: string) => `${STORE_PREFIX}parts/${part}/${baseSha256}/d-${pieceSha256}`,
  gatewaysPrefix: `${STORE_PREFIX}gateways/`,
  gateway: (id: string) => `${STORE_PREFIX}gateways/${id}.json`,
};

export const STORE_PARTS = ['auth', 'decks'] as const;
export type StorePart = (typeof STORE_PARTS)[number];

/** Segments of a part file: big enough for few requests, small enough to hold one in memory. */
export const STORE_SEGMENT_BYTES = 16 * 1024 * 1024;

const sha256 = z.string().regex(SHA256_HEX_PATTERN);
const objectRef = z.object({ size: z.number().int().nonnegative(), sha256 });
/** A page delta (page-delta.ts): its pieces (each ≤ 4 MiB, content-addressed), and the file it makes. */
export const deltaRefSchema = z.object({
  pieces: z.array(objectRef).min(1),
  /** SHA-256 and size of the whole file once this delta is applied. */
  result: z.object({ sha256, size: z.number().int().nonnegative() }),
});
export type DeltaRef = z.infer<typeof deltaRefSchema>;
export const partRefSchema = z.object({
  sha256,
  size: z.number().int().nonnegative(),
  /** The writer's change generation of this part when it was built (store_generations). */
  generation: z.number().int().nonnegative(),
  /** Segments of the file itself, or (with `base`) of the base file the deltas apply to. */
  segments: z.array(objectRef).min(1),
  /**
   * Decks parts published incrementally (decks-publish.ts): `segments` hold this base file, and
   * `deltas`, applied in order, make the part. Every object lives under partPrefix(base.sha256).
   */
  base: z.object({ sha256, size: z.number().int().nonnegative() }).optional(),
  deltas: z.array(deltaRefSchema).optional(),
  /**
   * A part re-published whole (a rebase, after its deltas grew past the threshold): the delta from
   * the part before it, so that a gateway holding that one still downloads only the change.
   */
  bridge: z.object({ from: sha256, delta: deltaRefSchema }).optional(),
  /**
   * The file's page size and the SHA-256 of the concatenated SHA-256s of its pages (page-hashes.ts):
   * what a gateway checks a file made from its own plus a delta against without reading it whole.
   */
  pageSize: z.number().int().min(512).max(65536).optional(),
  pageRoot: sha256.optional(),
  /**
   * 'pages': `sha256` (and each delta's `result.sha256`, the base's and the bridge's `from`) is the
   * file's page root, not the SHA-256 of its bytes, so that the writer names a new file by what
   * changed without reading all of it (decks-publish.ts). Files are checked by hashing their pages.
   */
  digest: z.literal('pages').optional(),
});
export type PartRef = z.infer<typeof partRefSchema>;

/** A store's lineage id: a random UUID drawn by its first publish (version-order.ts). */
export const STORE_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Manifest format: 2 when a part is named by its page root (`digest: 'pages'`), which a reader of
 * format 1 would check as a SHA-256 of the bytes and refuse; 1 otherwise.
 */
export const STORE_MANIFEST_FORMATS = [1, 2] as const;
export const storeManifestSchema = z.object({
  format: z.union([z.literal(STORE_MANIFEST_FORMATS[0]), z.literal(STORE_MANIFEST_FORMATS[1])]),
  kind: z.literal('snapdeck-store'),
  version: z.string().regex(VERSION_PATTERN),
  createdAt: z.string(),
  /** The version this one was published on top of (null for the first). */
  base: z.string().regex(VERSION_PATTERN).nullable(),
  /**
   * Position in the store's history: above every version its writer published or saw. Absent in
   * manifests written before sequences existed (version-order.ts says how they are ordered).
   */
  sequence: z.number().int().positive().optional(),
  /** The store this version belongs to (the same in every version of it). */
  storeId: z.string().regex(STORE_ID_PATTERN).optional(),
  parts: z.object({ auth: partRefSchema, decks: partRefSchema }),
});
export type StoreManifest = z.infer<typeof storeManifestSchema>;

/** Parses a manifest object's bytes; throws with the reason. */
export function parseStoreManifest(body: Uint8Array, version: string): StoreManifest {
  const manifest = storeManifestSchema.parse(JSON.parse(Buffer.from(body).toString('utf8')));
  if (manifest.version !== version) throw new Error(`manifest of ${version} names version ${manifest.version}`);
  return manifest;
}

/** Where a part's objects are stored: under its base file's prefix when it is made of deltas, else its own. */
export function storedUnder(ref: PartRef): string {
  return ref.base?.sha256 ?? ref.sha256;
}

/** Every object of a delta, as (key, size + checksum) pairs; `under`: the prefix it lives under. */
export function deltaObjects(part: StorePart, under: string, delta: DeltaRef): Array<[string, { size: number; sha256: string }]> {
  return delta.pieces.map((piece) => [storeLayout.deltaPiece(part, under, piece.sha256), piece]);
}
