import { z } from 'zod';
import { VERSION_PATTERN } from '../layout.ts';

/**
 * Where card change records live (decisions.md "Card changes"):
 *
 *   <game>/versions/<version>/card-hashes.bin  every card id of the version with a hash of its content
 *                                               (a file of the version: gc removes it with the version)
 *   <game>/changes/<version>.json               what the build of <version> changed, against the version
 *                                               current before it: outside the version's folder, so it
 *                                               outlives the version's pages (gc --keep-changes-days)
 */
export const CARD_HASHES_FILE = 'card-hashes.bin';
export const changesPrefix = (game: string) => `${game}/changes/`;
export const changeRecordKey = (game: string, version: string) => `${changesPrefix(game)}${version}.json`;

/** The version a change record's key names, or null when the key is not a record's. */
export function recordVersion(game: string, key: string): string | null {
  const prefix = changesPrefix(game);
  if (!key.startsWith(prefix) || !key.endsWith('.json')) return null;
  const version = key.slice(prefix.length, -'.json'.length);
  return VERSION_PATTERN.test(version) ? version : null;
}

export const changeRecordSchema = z.object({
  format: z.literal(1),
  game: z.string(),
  version: z.string().regex(VERSION_PATTERN),
  /** The version current when this one was built; null: no earlier version to compare with (the chain ends). */
  from: z.string().regex(VERSION_PATTERN).nullable(),
  createdAt: z.string(),
  /** Card ids, each sorted. */
  added: z.array(z.string()),
  changed: z.array(z.string()),
  removed: z.array(z.string()),
});
export type ChangeRecord = z.infer<typeof changeRecordSchema>;
