/**
 * The docs hold together: every relative link of README.md and docs/**\/*.md names a file that
 * exists and, with a `#anchor`, a heading of that file (anchors as GitHub makes them). And the
 * README stays the front door the docs' layout relies on: it starts with the two commands, stays
 * short, keeps the heading other files point to, and no page names a work item instead of saying
 * what and why.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, markdownFiles } from './helpers/readme-guide.ts';

/** The text of a Markdown file with fenced blocks blanked (line numbers kept) and inline code removed. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '');
  });
}

/** GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_]{1,2}([^*_]+)[*_]{1,2}/g, '$1');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file's headings make, duplicates numbered as GitHub numbers them. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

function relativeLinks(): Link[] {
  const links: Link[] = [];
  for (const file of markdownFiles()) {
    prose(readFileSync(join(ROOT, file), 'utf8')).forEach((text, i) => {
      for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
        links.push({ file, line: i + 1, target });
      }
    });
  }
  return links;
}

describe('links between the docs', () => {
  it('finds links in README.md and docs/', () => {
    expect(markdownFiles()).toContain('docs/operators/day-one.md');
    expect(relativeLinks().length).toBeGreaterThan(50);
  });

  it('every relative link names a file that exists, and a heading of it for an #anchor', () => {
    const failures: string[] = [];
    for (const { file, line, target } of relativeLinks()) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? join(ROOT, file) : normalize(join(ROOT, dirname(file), decodeURI(path)));
      const where = `${file}:${line}: ${target}`;
      if (relative(ROOT, resolved).startsWith('..')) failures.push(`${where}: outside the repository`);
      else if (!existsSync(resolved)) failures.push(`${where}: no such file`);
      else if (anchor !== undefined) {
        if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) failures.push(`${where}: an anchor into a file that is not Markdown`);
        else if (!anchorsOf(resolved).has(anchor)) failures.push(`${where}: ${relative(ROOT, resolved)} has no heading #${anchor}`);
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    expect(slug('Card changes: a partner\'s nightly sync')).toBe('card-changes-a-partners-nightly-sync');
    expect(slug('Before and after a change: bench:compare')).toBe('before-and-after-a-change-benchcompare');
    expect(slug('The client package: `@snapdeck/client`')).toBe('the-client-package-snapdeckclient');
    expect(slug('Supported Node.js versions')).toBe('supported-nodejs-versions');
    expect(slug('Private decks, share tokens and links')).toBe('private-decks-share-tokens-and-links');
  });

  it('every page of docs/ is linked from another page', () => {
    const linked = new Set<string>();
    for (const file of markdownFiles()) {
      for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)) linked.add(normalize(join(dirname(file), match[1]!)));
    }
    const orphans = markdownFiles().filter((file) => file !== 'README.md' && !linked.has(normalize(file)));
    expect(orphans).toEqual([]);
  });

  it('the request flow names source files that exist (relative ones are under packages/gateway/src/)', () => {
    const text = readFileSync(join(ROOT, 'docs', 'contributors', 'request-flow.md'), 'utf8');
    const named = [...text.matchAll(/`([\w./-]+\.ts)`/g)].map((match) => match[1]!);
    expect(named.length).toBeGreaterThan(40);
    const missing = named.filter((file) => !existsSync(join(ROOT, file.startsWith('packages/') ? file : join('packages', 'gateway', 'src', file))));
    expect(missing).toEqual([]);
  });
});

describe('the README, the front door', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

  it('starts with the two commands, `npm ci && npm start` then `npm ci && npm test`', () => {
    const blocks = [...readme.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)].map((m) => `${m[1]}: ${m[2]!.trim()}`);
    expect(blocks.slice(0, 2)).toEqual(['sh: npm ci && npm start', 'sh: npm ci && npm test']);
    // Nothing but the title before the first command.
    expect(readme.slice(0, readme.indexOf('```')).trim()).toBe('# snapdeck');
  });

  it('is at most 300 lines, with a section on the supported Node.js versions', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
    expect(readme).toMatch(/^## Supported Node\.js versions$/m);
  });
});

describe('no work-item numbers', () => {
  it('README.md and docs/ say what and why, never a work-item number', () => {
    const failures: string[] = [];
    for (const file of markdownFiles()) {
      readFileSync(join(ROOT, file), 'utf8').split('\n').forEach((text, i) => {
        if (/\bissues? \d+|\bitem \d+/i.test(text)) failures.push(`${file}:${i + 1}: ${text.trim()}`);
      });
    }
    expect(failures, failures.join('\n')).toEqual([]);
  });
});
