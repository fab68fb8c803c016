import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, type ParseEntry } from 'shell-quote';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The docs' shell blocks as data, so tests can run what the operators' guide tells an operator to
 * type (test/operator-guide.test.ts) and check every other command the docs show
 * (test/docs-commands.test.ts): the docs cannot drift from the product.
 */
export const README = join(ROOT, 'README.md');
export const DOCS = join(ROOT, 'docs');
/** The page whose block test/operator-guide.test.ts runs line by line. */
export const DAY_ONE = join(DOCS, 'operators', 'day-one.md');

/** README.md and every Markdown file under docs/, as paths relative to the repository root, sorted. */
export function markdownFiles(): string[] {
  const docs = readdirSync(DOCS, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md'));
  return ['README.md', ...docs.map((name) => join('docs', name).split(sep).join('/'))].sort();
}

/** One command line of a `sh` block: its words, `&`, a `> file` redirect, and its comment. */
export interface GuideLine {
  text: string;
  words: string[];
  background: boolean;
  redirect: string | null;
  comment: string;
}

/** The first ```sh block after the heading `heading` (a whole line of `file`, day-one.md by default). */
export function shBlockAfter(heading: string, file = DAY_ONE): string {
  const text = readFileSync(file, 'utf8');
  const at = text.split('\n').indexOf(heading);
  if (at < 0) throw new Error(`${file} has no heading ${JSON.stringify(heading)}`);
  const rest = text.split('\n').slice(at + 1).join('\n');
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(rest);
  if (!block) throw new Error(`${file} has no sh block after ${heading}`);
  return block[1]!;
}

/** Every ```sh block of a Markdown section (from `heading` to the next heading of its level or higher). */
export function shBlocksOfSection(heading: string, text: string): string[] {
  const lines = text.split('\n');
  const at = lines.indexOf(heading);
  if (at < 0) throw new Error(`no heading ${JSON.stringify(heading)}`);
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
    else throw new Error(`unsupported shell syntax in a docs line: ${text}`);
  }
  return { text, words, background, redirect, comment };
}
