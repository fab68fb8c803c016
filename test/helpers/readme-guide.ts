import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, type ParseEntry } from 'shell-quote';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The README's shell blocks as data, so tests can run what the operator's guide tells an operator
 * to type (test/operator-guide.test.ts) and the guide cannot drift from the product.
 */
export const README = join(ROOT, 'README.md');

/** One command line of a `sh` block: its words, `&`, a `> file` redirect, and its comment. */
export interface GuideLine {
  text: string;
  words: string[];
  background: boolean;
  redirect: string | null;
  comment: string;
}

/** The first ```sh block after the heading `heading` (a whole line of README.md). */
export function shBlockAfter(heading: string, readme = readFileSync(README, 'utf8')): string {
  const at = readme.split('\n').indexOf(heading);
  if (at < 0) throw new Error(`README.md has no heading ${JSON.stringify(heading)}`);
  const rest = readme.split('\n').slice(at + 1).join('\n');
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(rest);
  if (!block) throw new Error(`README.md has no sh block after ${heading}`);
  return block[1]!;
}

/** Every ```sh block of a README section (from `heading` to the next heading of its level or higher). */
export function shBlocksOfSection(heading: string, readme = readFileSync(README, 'utf8')): string[] {
  const lines = readme.split('\n');
  const at = lines.indexOf(heading);
  if (at < 0) throw new Error(`README.md has no heading ${JSON.stringify(heading)}`);
  const level = /^#+/.exec(heading)![0].length;
  const end = lines.findIndex((line, i) => i > at && /^#+ /.test(line) && /^#+/.exec(line)![0].length <= level && !inFence(lines, i));
  const section = lines.slice(at + 1, end < 0 ? undefined : end).join('\n');
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** True when line i is inside a ``` fence (a `# comment` line of a shell block is not a heading). */
function inFence(lines: string[], i: number): boolean {
  return lines.slice(0, i).filter((line) => line.startsWith('```')).length % 2 === 1;
}

/** The command lines of a block (continuations joined, comment-only and blank lines left out). */
export function guideLines(block: string): GuideLine[] {
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((text) => text.trim() !== '' && !text.trim().startsWith('#'))
    .map(parseLine);
}

export function parseLine(text: string): GuideLine {
  const entries: ParseEntry[] = parse(text, (name) => `$${name}`);
  const words: string[] = [];
  let background = false;
  let redirect: string | null = null;
  let comment = '';
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (typeof entry === 'string') words.push(entry);
    else if ('comment' in entry) comment = entry.comment.trim();
    else if ('op' in entry && entry.op === '&') background = true;
    else if ('op' in entry && entry.op === '>') redirect = String(entries[++i]);
    else throw new Error(`unsupported shell syntax in README line: ${text}`);
  }
  return { text, words, background, redirect, comment };
}
