import type { ChangeRecord } from './layout.ts';

/** The net change from one version to a later one: each card at most once, sorted by id. */
export interface NetChanges {
  ids: string[];
  /** true: upsert (the card is in the later version), false: delete; by position in `ids`. */
  upsert: boolean[];
}

/**
 * Folds consecutive change records (oldest first; each one's `from` is the previous one's
 * `version`) into the net change across them. A card's first event says whether it existed at
 * the start (added: no; changed or removed: yes), its last whether it exists at the end (removed:
 * no). In the end and not at the start, or in both: upsert. At the start only: delete. Neither
 * (added, then removed): absent.
 */
export function netChanges(records: readonly ChangeRecord[]): NetChanges {
  const first = new Map<string, boolean>(); // id → existed at the start
  const last = new Map<string, boolean>(); // id → exists at the end
  for (const record of records) {
    for (const id of record.added) {
      if (!first.has(id)) first.set(id, false);
      last.set(id, true);
    }
    for (const id of record.changed) {
      if (!first.has(id)) first.set(id, true);
      last.set(id, true);
    }
    for (const id of record.removed) {
      if (!first.has(id)) first.set(id, true);
      last.set(id, false);
    }
  }
  const ids = [...last.keys()].filter((id) => last.get(id) || first.get(id)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { ids, upsert: ids.map((id) => last.get(id)!) };
}

/**
 * The records leading from `since` to `current`, oldest first, following each record's `from`
 * back from `current`; null when the chain breaks before reaching `since` (a record missing, or
 * one whose `from` is null or older than `since`): `since` is not a version whose change records
 * are kept. Versions sort by time, so the walk stops as soon as it passes `since`.
 */
export async function chainBetween(
  since: string, current: string, load: (version: string) => Promise<ChangeRecord | null> | ChangeRecord | null,
): Promise<ChangeRecord[] | null> {
  const chain: ChangeRecord[] = [];
  let at = current;
  while (at !== since) {
    if (at < since) return null;
    const record = await load(at);
    if (!record || record.from === null) return null;
    chain.push(record);
    at = record.from;
  }
  return chain.reverse();
}
