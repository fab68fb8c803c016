import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { OperatorError, CARD_ID_PATTERN, CARD_MODELS, findGame, type GameSlug } from '@snapdeck/contract';

/** One problem with one line of a catalog file, in the form an operator can act on. */
export interface CatalogProblem {
  file: string;
  game: GameSlug;
  line: number;
  /** The line's card id, when it has a string one (null for a line that is not JSON). */
  cardId: string | null;
  field: string;
  reason: string;
}

/** An id as the message shows it: quoted (escapes and all) unless it is a well-formed card id. */
function shownId(id: string | null): string {
  if (id === null) return '(no id)';
  return CARD_ID_PATTERN.test(id) ? id : JSON.stringify(id);
}

export class CatalogInvalidError extends OperatorError {
  constructor(readonly problems: CatalogProblem[], readonly total: number) {
    const shown = problems.map((p) => `  ${p.file}:${p.line}: ${p.field}: ${p.reason} (${p.game} card ${shownId(p.cardId)})`).join('\n');
    const more = total > problems.length ? `\n  … and ${total - problems.length} more` : '';
    super(`catalog is invalid (${total} problem${total === 1 ? '' : 's'}); nothing was published:\n${shown}${more}`);
  }
}

/**
 * A validated card, kept as the UTF-8 JSON that will be served (the object itself is not kept):
 * bytes rather than strings, so a 100,000-card catalog sits outside the JS heap at half the size.
 */
export interface CatalogEntry {
  id: string;
  card: Buffer;
  hit: Buffer;
}

const MAX_REPORTED = 20;

/**
 * The lines of a JSON Lines file, streamed: split at \n only (a \r before it is dropped). Not
 * node:readline, which since Node 24 also ends a line at U+2028 and U+2029: JSON.stringify leaves
 * those unescaped inside strings, so a card whose text holds one would be cut in two.
 */
async function* jsonLines(file: string): AsyncGenerator<string> {
  const line = (text: string) => (text.endsWith('\r') ? text.slice(0, -1) : text);
  let rest = '';
  for await (const chunk of createReadStream(file, 'utf8') as AsyncIterable<string>) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop()!;
    for (const part of parts) yield line(part);
  }
  if (rest !== '') yield line(rest);
}

/**
 * Reads `<slug>.jsonl`, validating every line against the game's card schema. Returns the entries
 * in serving order (by id) or throws CatalogInvalidError naming up to 20 bad lines.
 */
export async function readCatalog(file: string, game: GameSlug, onLine?: (line: number) => void): Promise<CatalogEntry[]> {
  const model = CARD_MODELS[game];
  const pattern = findGame(game)!.cardIdPattern;
  const entries: CatalogEntry[] = [];
  const firstLine = new Map<string, number>();
  const problems: CatalogProblem[] = [];
  let total = 0;
  const problem = (line: number, cardId: string | null, field: string, reason: string) => {
    total += 1;
    if (problems.length < MAX_REPORTED) problems.push({ file, game, line, cardId, field, reason });
  };

  let lineNumber = 0;
  for await (const text of jsonLines(file)) {
    lineNumber += 1;
    onLine?.(lineNumber);
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      problem(lineNumber, null, '(line)', `not valid JSON: ${(error as Error).message}`);
      continue;
    }
    const parsed = model.card.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      for (const issue of parsed.error.issues) {
        problem(lineNumber, typeof id === 'string' ? id : null, issue.path.length ? issue.path.join('.') : '(card)', issue.message);
      }
      continue;
    }
    const card = parsed.data;
    if (!CARD_ID_PATTERN.test(card.id) || !pattern.test(card.id)) {
      problem(lineNumber, card.id, 'id', `${JSON.stringify(card.id)} is not a ${game} card id (expected ${pattern})`);
      continue;
    }
    const seen = firstLine.get(card.id);
    if (seen !== undefined) {
      problem(lineNumber, card.id, 'id', `duplicate card id ${card.id} (first on line ${seen})`);
      continue;
    }
    firstLine.set(card.id, lineNumber);
    entries.push({ id: card.id, card: Buffer.from(JSON.stringify(card)), hit: Buffer.from(JSON.stringify(model.toHit(card))) });
  }
  if (total > 0) throw new CatalogInvalidError(problems, total);
  // Byte order of ids: fixed within a version, and the same on every machine.
  entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return entries;
}

export async function fileExists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
