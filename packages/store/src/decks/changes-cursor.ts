import { openToken, signToken, verifyToken } from '@snapdeck/snapshot';

/**
 * Cursors of GET /v1/decks/changes (decisions.md "Deck changes"): opaque to clients, sealed with
 * the store's listing cursor key (secret.ts, the same in every version of a store, so a cursor is
 * valid on every gateway following it), in the envelope every cursor of the service shares
 * (@snapdeck/snapshot's signed token). A cursor of another store, of another game, a hand-made or
 * a tampered one, or a /decks/public cursor (whose payload starts "d1|") fails to open: 400.
 *
 * Payload = "f1|<game>|<epoch>|<position>|<watermark>":
 * - position: the number of the last change the client has (the next page starts after it);
 * - watermark: the head of the store version that issued the cursor. A gateway whose own head is
 *   below it still serves an older version (it follows the store a moment behind another): it
 *   answers "nothing yet, more to come" rather than end a sync on older data (changes.ts);
 * - epoch: the feed's epoch (changes-schema.ts); a cursor of an earlier epoch is a cursor of this
 *   store that can no longer be followed: 410.
 */
export interface DeckChangesCursor {
  game: string;
  epoch: string;
  position: number;
  watermark: number;
}

const VERSION = 'f1';
const GAME = /^[a-z0-9-]{1,64}$/;
const EPOCH = /^[0-9a-f]{1,32}$/;
const COUNT = /^(0|[1-9]\d{0,15})$/;

export function encodeDeckChangesCursor(key: Uint8Array, cursor: DeckChangesCursor): string {
  return signToken(key, [VERSION, cursor.game, cursor.epoch, cursor.position, cursor.watermark].join('|'));
}

/** The cursor if `token` is one this store issued for `game`, else null (malformed, foreign, tampered, another game). */
export function decodeDeckChangesCursor(key: Uint8Array, token: string, game: string): DeckChangesCursor | null {
  const opened = openToken(token);
  if (!opened || !verifyToken(key, opened)) return null;
  const parts = opened.payload.split('|');
  if (parts.length !== 5 || parts[0] !== VERSION) return null;
  const [, cursorGame, epoch, position, watermark] = parts as [string, string, string, string, string];
  if (!GAME.test(cursorGame) || cursorGame !== game || !EPOCH.test(epoch) || !COUNT.test(position) || !COUNT.test(watermark)) return null;
  return { game: cursorGame, epoch, position: Number(position), watermark: Number(watermark) };
}
