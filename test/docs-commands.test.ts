/**
 * Every shell command the docs show is run or checked by a test. This file collects every ```sh,
 * ```bash and ```shell block of README.md and docs/**\/*.md and fails on any command line that
 * nothing covers, naming its file and line. A line is covered when it is:
 *
 * - in a block that another test runs line by line (RUN_ELSEWHERE below), or the same command as a
 *   line of such a block;
 * - `npx snapdeck …`: accepted by the CLI's real commander program (`createProgram` of
 *   @snapdeck/cli, every action replaced by a no-op): the command exists, every option is one of
 *   its own, option values pass its parsers, and the arguments are as many as it takes;
 * - `npm ci`, `npm start`, `npm test`, `npm run X [-- FLAGS]`: the lock file or the script exists in
 *   package.json, and each FLAG is read by the script's source (the file the script runs, and the
 *   `lib/` folder and the folder of its own name beside it);
 * - `npx tsx FILE [FLAGS]`: the file exists and reads each flag;
 * - `npx vitest run PATH… [-t NAME]`, `npx tsc -p FILE`, `npx changeset`: the paths, the project
 *   file or the tool (a devDependency) exist;
 * - `npm install ./snapdeck-client-<version>.tgz`: the version is the client package's, and
 *   test/client-package.test.ts installs the packed tarball;
 * - `export NAME=…`: NAME is read by snapdeck's sources, or is one of the AWS SDK's own variables.
 *
 * Anything else (a `curl`, a `cp`, a tool this file does not know) must be in a block run elsewhere:
 * prefer fewer shell blocks in the docs over ones nothing checks.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { parse, type ParseEntry } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { createProgram } from '@snapdeck/cli';
import { ROOT, markdownFiles } from './helpers/readme-guide.ts';

/** Blocks another test runs line by line: the file, the heading the block follows, and the test. */
const RUN_ELSEWHERE = [
  { file: 'docs/operators/day-one.md', heading: '# Day one, step by step', test: 'test/operator-guide.test.ts' },
  // Run with podman and podman-compose by `npm run test:containers` (.ci/run), outside `npm test`.
  { file: 'docs/operators/containers.md', heading: '## The whole topology, step by step', test: 'test/containers/compose.container.ts' },
];

/** Environment variables of the AWS SDK (not read by snapdeck's sources, but by the SDK it uses). */
const AWS_VARIABLES = new Set(['AWS_REGION', 'AWS_PROFILE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']);

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell']);

interface DocLine {
  file: string;
  /** 1-based line number in the file (the first line of a continued command). */
  line: number;
  text: string;
  /** The heading the block follows (the nearest heading line above it). */
  heading: string;
}

/** Every command line of every shell block of README.md and docs/ (continuations joined, comments and blank lines left out). */
function docLines(): DocLine[] {
  const out: DocLine[] = [];
  for (const file of markdownFiles()) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    let heading = '';
    for (let i = 0; i < lines.length; i++) {
      const fence = /^```(\S*)/.exec(lines[i]!);
      if (!fence) {
        if (/^#{1,6} /.test(lines[i]!)) heading = lines[i]!;
        continue;
      }
      const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
      if (SHELL_LANGUAGES.has(fence[1]!)) {
        for (let j = i + 1; j < end; j++) {
          let text = lines[j]!;
          const start = j + 1;
          while (text.endsWith('\\') && j + 1 < end) text = `${text.slice(0, -1)} ${lines[++j]!.trim()}`;
          if (text.trim() !== '' && !text.trim().startsWith('#')) out.push({ file, line: start, text, heading });
        }
      }
      i = end;
    }
  }
  return out;
}

/** The commands of a line: its words, split at `&&`; `&`, a `> file` redirect and the comment dropped. */
function commandsOf(text: string): string[][] {
  const commands: string[][] = [[]];
  const entries: ParseEntry[] = parse(text, (name) => `$${name}`);
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (typeof entry === 'string') commands.at(-1)!.push(entry);
    else if ('comment' in entry) continue;
    else if ('op' in entry && entry.op === '&&') commands.push([]);
    else if ('op' in entry && entry.op === '&') continue;
    else if ('op' in entry && entry.op === '>') i++;
    else throw new Error(`shell syntax this test does not check: ${JSON.stringify(entry)}`);
  }
  return commands.filter((words) => words.length > 0);
}

/** The same command, however it is spaced or commented. */
const normalized = (text: string): string => commandsOf(text).map((words) => words.join(' ')).join(' && ');

const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; devDependencies: Record<string, string> };
const clientVersion = (JSON.parse(readFileSync(join(ROOT, 'packages', 'client', 'package.json'), 'utf8')) as { version: string }).version;

/** The sources a script file reads its flags in: itself, and `lib/` and `<name>/` beside it. */
function scriptSources(file: string): string {
  const folders = [join(dirname(file), 'lib'), join(dirname(file), basename(file, '.ts'))].filter((dir) => existsSync(join(ROOT, dir)));
  const files = [file, ...folders.flatMap((dir) => readdirSync(join(ROOT, dir)).filter((name) => name.endsWith('.ts')).map((name) => join(dir, name)))];
  return files.map((name) => readFileSync(join(ROOT, name), 'utf8')).join('\n');
}

/** Whether a script's source reads `--flag`: as a literal, a parseArgs key, or an `option('flag')` helper. */
function readsFlag(source: string, flag: string): boolean {
  const name = flag.replace(/^--/, '').replace(/=.*$/, '');
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`['"\`]--${escaped}['"\`]|(^|[\\s{,])['"]?${escaped}['"]?\\s*:\\s*\\{|option\\(['"]${escaped}['"]`, 'm').test(source);
}

/** Checks a script run with `args`: every flag it is given must be one it reads. */
function checkScriptFlags(file: string, args: string[]): string | null {
  if (!existsSync(join(ROOT, file))) return `${file} does not exist`;
  const source = scriptSources(file);
  const unknown = args.filter((arg) => arg.startsWith('--') && !readsFlag(source, arg));
  return unknown.length > 0 ? `${file} does not read ${unknown.join(', ')}` : null;
}

/** Leaf commands of the real program, every action replaced by a no-op. */
function checkingProgram(): Command {
  // Help and errors are not printed: a refusal comes back as the thrown CommanderError's message.
  const program = createProgram({ out: () => {}, err: () => {} });
  const leaves = (command: Command): Command[] => (command.commands.length === 0 ? [command] : command.commands.flatMap(leaves));
  for (const command of leaves(program)) command.action(() => {});
  return program;
}

async function checkSnapdeck(args: string[]): Promise<string | null> {
  try {
    await checkingProgram().parseAsync(args, { from: 'user' });
    return null;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return null;
    return `snapdeck refuses it: ${(error as Error).message}`;
  }
}

/** Sources of snapdeck that may read environment variables. */
const sourceText = (() => {
  const files = ['packages', 'scripts'].flatMap((top) =>
    readdirSync(join(ROOT, top), { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.(ts|mjs|js|cjs)$/.test(name) && !name.includes('node_modules'))
      .map((name) => join(ROOT, top, name)),
  );
  return files.map((file) => readFileSync(file, 'utf8')).join('\n');
})();

/** Why a command is not covered, or null when it is. */
async function check(words: string[]): Promise<string | null> {
  // Leading `NAME=value` words set the environment of the command; the command is what follows.
  const first = words.findIndex((word) => !/^[A-Z_][A-Z0-9_]*=/.test(word));
  const [tool, ...args] = words.slice(first < 0 ? words.length : first);
  if (tool === 'export') {
    const name = args[0]?.split('=')[0] ?? '';
    return AWS_VARIABLES.has(name) || sourceText.includes(name) ? null : `no source reads ${name}`;
  }
  if (tool === 'npx' && args[0] === 'snapdeck') return checkSnapdeck(args.slice(1));
  if (tool === 'npx' && args[0] === 'tsx') return checkScriptFlags(args[1] ?? '', args.slice(2));
  if (tool === 'npx' && args[0] === 'vitest') {
    if (args[1] !== 'run') return 'only `npx vitest run …` is checked';
    const paths = args.slice(2).filter((arg, i, all) => !arg.startsWith('-') && all[i - 1] !== '-t');
    const missing = paths.filter((path) => !existsSync(join(ROOT, path)));
    const flags = args.filter((arg) => arg.startsWith('-') && arg !== '-t');
    return missing.length > 0 ? `no such test path: ${missing.join(', ')}` : flags.length > 0 ? `vitest flags this test does not know: ${flags.join(', ')}` : null;
  }
  if (tool === 'npx' && args[0] === 'tsc') return args[1] === '-p' && existsSync(join(ROOT, args[2] ?? '')) ? null : 'expected `npx tsc -p <existing project file>`';
  if (tool === 'npx' && args[0] === 'changeset') return '@changesets/cli' in packageJson.devDependencies ? null : '@changesets/cli is not a devDependency';
  if (tool === 'npm' && args[0] === 'ci') return args.length === 1 && existsSync(join(ROOT, 'package-lock.json')) ? null : 'npm ci needs package-lock.json';
  if (tool === 'npm' && args[0] === 'install') {
    const tarball = `./snapdeck-client-${clientVersion}.tgz`;
    return args.length === 2 && args[1] === tarball && existsSync(join(ROOT, 'test', 'client-package.test.ts')) ? null : `expected \`npm install ${tarball}\` (the client package's version)`;
  }
  if (tool === 'npm' && (args[0] === 'start' || args[0] === 'test' || args[0] === 'run')) {
    const name = args[0] === 'run' ? args[1]! : args[0];
    const script = packageJson.scripts[name];
    if (!script) return `package.json has no script ${name}`;
    const rest = args.slice(args[0] === 'run' ? 2 : 1);
    const flags = rest[0] === '--' ? rest.slice(1) : rest;
    if (flags.length === 0) return null;
    const file = /\btsx (\S+\.ts)\b/.exec(script)?.[1];
    return file ? checkScriptFlags(file, flags) : `npm run ${name} takes no flags this test can check`;
  }
  return `no test runs or checks \`${tool}\` lines: move the line into a block a test runs, or leave it out of the docs`;
}

describe('every shell command the docs show', () => {
  const lines = docLines();

  it('finds the blocks, including those run elsewhere', () => {
    expect(lines.length).toBeGreaterThan(30);
    for (const block of RUN_ELSEWHERE) {
      expect(existsSync(join(ROOT, block.test)), block.test).toBe(true);
      expect(lines.some((line) => line.file === block.file && line.heading === block.heading), `${block.file}: ${block.heading}`).toBe(true);
    }
  });

  it('is run by a test or checked here', async () => {
    const runElsewhere = (line: DocLine) => RUN_ELSEWHERE.some((block) => block.file === line.file && block.heading === line.heading);
    const ranCommands = new Set(lines.filter(runElsewhere).map((line) => normalized(line.text)));
    const failures: string[] = [];
    for (const line of lines) {
      if (runElsewhere(line)) continue;
      let commands: string[][];
      try {
        commands = commandsOf(line.text);
      } catch (error) {
        failures.push(`${line.file}:${line.line}: ${line.text.trim()}\n  ${(error as Error).message}`);
        continue;
      }
      if (ranCommands.has(normalized(line.text))) continue;
      for (const words of commands) {
        const problem = await check(words);
        if (problem) failures.push(`${line.file}:${line.line}: ${line.text.trim()}\n  ${problem}`);
      }
    }
    expect(failures, failures.join('\n')).toEqual([]);
  });

  it('fails a command nothing covers, naming why', async () => {
    expect(await check(['curl', '-s', 'http://127.0.0.1:8787/v1/games'])).toMatch(/no test runs or checks `curl`/);
    expect(await check(['npx', 'snapdeck', 'keys', 'create', '--name', 'x', '--no-such-flag'])).toMatch(/snapdeck refuses it: .*unknown option '--no-such-flag'/);
    expect(await check(['npx', 'snapdeck', 'serve', 'extra-argument'])).toMatch(/snapdeck refuses it/);
    expect(await check(['npx', 'snapdeck', 'gc', '--keep', 'three'])).toMatch(/snapdeck refuses it/);
    expect(await check(['npm', 'run', 'no-such-script'])).toMatch(/no script no-such-script/);
    expect(await check(['npm', 'run', 'bench:cards', '--', '--no-such-flag'])).toMatch(/does not read --no-such-flag/);
    expect(await check(['npm', 'run', 'bench:cards', '--', '--skip-s3'])).toBeNull();
    expect(await check(['npx', 'vitest', 'run', 'test/no-such.test.ts'])).toMatch(/no such test path/);
    expect(await check(['export', 'SNAPDECK_NO_SUCH_VARIABLE=1'])).toMatch(/no source reads/);
    expect(await check(['npm', 'install', './snapdeck-client-0.0.1.tgz'])).toMatch(/client package's version/);
  });
});
