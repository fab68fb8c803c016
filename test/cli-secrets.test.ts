/**
 * No CLI output prints a secret, argument errors included (decisions.md: a key, share token or
 * `pd_` link is shown by its first 12 characters at most, "whether it was given in the right place
 * or by mistake"). Every command of the real commander program is walked; each kind of secret is
 * fed to each of its arguments and options (as `--opt VALUE` and `--opt=VALUE`, and for `serve`
 * as the SNAPDECK_<OPTION> variable too), as an unknown option and as an unknown command, and
 * stdout and stderr are scanned. The commands run in-process (`runCli`) in an empty folder, so
 * nothing they create lands in the checkout.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { createProgram, runCli } from '@snapdeck/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, waitFor } from './helpers/harness.ts';
import { scanCliOutput, secretScan } from './helpers/secret-scan.ts';
import { startCliGateway } from './helpers/cli-gateway.ts';

const HEX = '0123456789abcdef'.repeat(2);
/** Each kind of secret, as typed right, upper-cased, and with a typo (no longer hex: the scan's pattern misses it, the check below does not). */
const SECRETS: Record<string, string> = {
  key: `sd_live_${HEX}`,
  'share token': `st_${'ab'.repeat(16)}`,
  'pd_ link': `pd_${'cd'.repeat(16)}`,
  'key, upper case': `SD_LIVE_${HEX.toUpperCase()}`,
  'share token with a typo': `st_${'ab'.repeat(15)}ag`,
  'pd_ link, one character too many': `pd_${'cd'.repeat(16)}e`,
  'key glued to a digit': `0sd_live_${HEX}`,
  'pd_ link glued to a letter': `e0da5pd_${'cd'.repeat(16)}`,
};
/** What comes before the prefix in a glued secret: kept, as it is no part of the secret. */
const glue = (secret: string): string => /^(.*?)(?:sd_live_|st_|pd_)/i.exec(secret)![1]!;

interface Case {
  args: string[];
  env?: Record<string, string>;
}

/** The leaf commands of the program with their path: `keys revoke`. */
function leaves(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  if (command.commands.length === 0) return [{ path, command }];
  return command.commands.flatMap((sub) => leaves(sub, [...path, sub.name()]));
}

const takesValue = (option: Option) => option.required || option.optional;

/** Every way of giving `secret` to `path`'s arguments and options. */
function casesOf(path: string[], command: Command, secret: string): Case[] {
  const args = command.registeredArguments.map(() => secret);
  const cases: Case[] = [{ args: [...path, ...args] }, { args: [...path, `--${secret}`] }];
  for (const option of command.options) {
    if (takesValue(option)) cases.push({ args: [...path, ...args, option.long!, secret] });
    cases.push({ args: [...path, ...args, `${option.long!}=${secret}`] });
    if (option.envVar) cases.push({ args: [...path], env: { [option.envVar]: secret } });
  }
  return cases;
}

let work: { dir: string; cleanup: () => Promise<void> };
const home = process.cwd();

beforeAll(async () => {
  work = await tempDir('snapdeck-cli-secrets-');
  process.chdir(work.dir);
  // A database, so that commands get past the `--db` check to the values under test.
  expect(await runCli(['keys', 'create', '--name', 'setup'], { from: 'user', output: { out: () => {}, err: () => {} } })).toBe(0);
  // `serve` stops before it listens: its deprecations file cannot be read (a flag or a case's own
  // variable still wins), so every option is parsed and checked, and no gateway is left running.
  process.env.SNAPDECK_DEPRECATIONS = join(work.dir, 'no-such-deprecations.json');
});

afterAll(async () => {
  delete process.env.SNAPDECK_DEPRECATIONS;
  process.chdir(home);
  await work?.cleanup();
});

async function run({ args, env = {} }: Case): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const saved = Object.keys(env).map((name) => [name, process.env[name]] as const);
  Object.assign(process.env, env);
  try {
    const code = await runCli(args, { from: 'user', output: { out: (text) => void (stdout += text), err: (text) => void (stderr += text) } });
    return { code, stdout, stderr };
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

describe('a secret given to any command, argument or option', () => {
  for (const [kind, secret] of Object.entries(SECRETS)) {
    it(`is never printed whole: ${kind}`, async () => {
      const program = createProgram();
      const cases = [
        { args: [secret] },
        ...program.commands.filter((c) => c.commands.length > 0).map((group) => ({ args: [group.name(), secret] })),
        ...leaves(program).flatMap(({ path, command }) => casesOf(path, command, secret)),
      ];
      const leaks: string[] = [];
      let shortened = 0;
      for (const testCase of cases) {
        const { stdout, stderr } = await run(testCase);
        const label = `${testCase.env ? `${Object.keys(testCase.env)[0]}=… ` : ''}snapdeck ${testCase.args.join(' ').replaceAll(secret, 'SECRET')}`;
        const lower = secret.toLowerCase();
        for (const [stream, text] of [['stdout', stdout], ['stderr', stderr]] as const) {
          if (text.toLowerCase().includes(lower)) leaks.push(`${label}: ${stream} repeats it whole`);
        }
        const prefixed = secret.slice(glue(secret).length);
        if (`${stdout}${stderr}`.includes(`${glue(secret)}${prefixed.slice(0, 12)}…`)) shortened += 1;
        // The suite's own scan, with its one allowance (the key `keys create` prints alone).
        scanCliOutput(testCase.args, stdout, stderr);
        leaks.push(...secretScan.findings.splice(0).map((finding) => `${label}: ${finding}`));
      }
      expect(leaks).toEqual([]);
      // The values were repeated (shortened), not ignored: the cases reach the messages under test.
      expect(cases.length).toBeGreaterThan(150);
      expect(shortened).toBeGreaterThan(cases.length / 3);
    });
  }

  it('shows its first 12 characters in the messages that quote it', async () => {
    const token = SECRETS['share token']!;
    const rejected = await run({ args: ['tokens', 'private', token] });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain(`error: command-argument value '${token.slice(0, 12)}…' is invalid for argument 'deckId'`);
    const unknown = await run({ args: ['keys', 'list', '--quota', token] });
    expect(unknown.stderr).toContain("error: unknown option '--quota'");
    const key = SECRETS.key!;
    const quota = await run({ args: ['keys', 'create', '--name', 'n', '--quota', key] });
    expect(quota.stderr).toContain(`argument '${key.slice(0, 12)}…' is invalid`);
  });

  it('in an import line, a member named like a link or token is shown by 12 characters', async () => {
    const link = SECRETS['pd_ link']!;
    const file = join(work.dir, 'secret-member.jsonl');
    await writeFile(file, `${JSON.stringify({ id: '3f2b8c1e-5d4a-4e6f-9a7b-1c2d3e4f5a6b', deleted: true, [link]: 1 })}\n`);
    const result = await run({ args: ['decks', 'import', file] });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`secret-member.jsonl:1: Unrecognized key: "${link.slice(0, 12)}…"`);
    expect(result.stderr).not.toContain(link);
  });

  it('`serve` reports an unpublished snapshot location without repeating a secret-looking name', async () => {
    const link = SECRETS['pd_ link']!;
    await mkdir(join(work.dir, 'data'), { recursive: true });
    const gateway = await startCliGateway(['--snapshots', join(work.dir, link), '--db', join(work.dir, 'data', 'snapdeck.db')], { env: { SNAPDECK_DEPRECATIONS: '' } });
    try {
      await waitFor(async () => gateway.output().stderr.includes('no snapshot has been published'), 10_000, 'serve printed no hint');
      const { stderr } = gateway.output();
      expect(stderr).toContain('no snapshot has been published');
      expect(stderr).toContain(`${link.slice(0, 12)}…`);
      expect(stderr).not.toContain(link);
    } finally {
      await gateway.stop();
    }
  });
});
