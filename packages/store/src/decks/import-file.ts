import { createReadStream } from 'node:fs';
import { DECK_IMPORT_LINE_MAX_BYTES } from '@snapdeck/contract';
import { DeckImportError, importDecks, type ImportOptions, type ImportResult } from './import.ts';

/**
 * The lines of an import file (without their `\n`), streamed: a million-deck file is never held
 * in memory, and neither is one line longer than `maxBytes` (the contract's
 * DECK_IMPORT_LINE_MAX_BYTES): reading stops there with a DeckImportError naming the line. Each
 * line is decoded as strict UTF-8: invalid bytes are refused by line number rather than stored
 * as U+FFFD. (node:readline offers neither: it buffers a line whatever its length, and its
 * decoder replaces bad bytes.)
 */
export async function* fileLines(file: string, maxBytes: number = DECK_IMPORT_LINE_MAX_BYTES): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Buffer[] = [];
  let size = 0;
  let line = 1;
  const decoded = (): string => {
    const bytes = Buffer.concat(parts, size);
    parts = [];
    size = 0;
    try {
      return decoder.decode(bytes);
    } catch {
      throw new DeckImportError(line, 'is not valid UTF-8');
    }
  };
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let from = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, from);
      const end = newline === -1 ? chunk.length : newline;
      size += end - from;
      if (size > maxBytes) throw new DeckImportError(line, `is longer than ${maxBytes} bytes, the most one import line may have`);
      parts.push(chunk.subarray(from, end));
      if (newline === -1) break;
      yield decoded();
      line += 1;
      from = newline + 1;
    }
  }
  if (size > 0) yield decoded();
}

export function importDecksFromFile(db: Parameters<typeof importDecks>[0], file: string, options: ImportOptions = {}): Promise<ImportResult> {
  return importDecks(db, fileLines(file), options);
}
