/**
 * Card change tests (decisions.md "Card changes"): catalogs edited between builds, and a partner's
 * copy of a game (id → hit) kept by applying GET /games/{slug}/changes or a full walk.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GameSlug } from '@snapdeck/contract';
import { FsDriver, build, type BuildResult } from '@snapdeck/snapshot';
import { getJson } from './harness.ts';

export type Card = Record<string, unknown> & { id: string; name: string };

/** Writes exactly `cards` as `<dir>/<game>.jsonl`. */
export async function writeCards(dir: string, game: GameSlug, cards: readonly Card[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, `${game}.jsonl`), cards.map((card) => JSON.stringify(card)).join('\n') + '\n');
}

/** Writes `cards` and builds them into `snapshots` (pages of 10 pre-rendered): the build's result. */
export async function buildCards(catalogDir: string, snapshots: string, game: GameSlug, cards: readonly Card[]): Promise<BuildResult> {
  await writeCards(catalogDir, game, cards);
  const [result] = await build({ catalogDir, storage: new FsDriver(snapshots), games: [game], hitsPerPage: [10] });
  return result!;
}

/** `card` with another name: a content change. */
export const renamed = (card: Card, name: string): Card => ({ ...card, name });

/** Every hit of the current version, by a full walk (hitsPerPage 1000): id → hit, and the version walked. */
export async function walkAll(base: string, game: string, headers: Record<string, string>): Promise<{ hits: Map<string, unknown>; version: string }> {
  const hits = new Map<string, unknown>();
  let cursor: string | null = null;
  let version = '';
  do {
    const r = await getJson(`${base}/games/${game}/cards?hitsPerPage=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, headers);
    if (r.status !== 200) throw new Error(`walk: ${r.status} ${r.text}`);
    for (const hit of r.body.data.hits) hits.set(hit.id, hit);
    version = r.body.data.indexVersion;
    cursor = r.body.data.cursor;
  } while (cursor !== null);
  return { hits, version };
}

/** Every page of GET /changes from `since`: the changes in order, the versions, the pages fetched. */
export async function allChanges(base: string, game: string, since: string, headers: Record<string, string>, limit?: number) {
  const changes: Array<{ cardId: string; change: 'upsert' | 'delete'; hit?: unknown }> = [];
  let cursor: string | null = null;
  let toVersion = '';
  let pages = 0;
  do {
    const query = `since=${encodeURIComponent(since)}${limit ? `&limit=${limit}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const r = await getJson(`${base}/games/${game}/changes?${query}`, headers);
    if (r.status !== 200) return { status: r.status, body: r.body, changes, toVersion, pages };
    pages += 1;
    changes.push(...r.body.data.changes);
    toVersion = r.body.data.toVersion;
    cursor = r.body.data.cursor;
  } while (cursor !== null);
  return { status: 200, body: null, changes, toVersion, pages };
}
