import { Command } from 'commander';
import { buildInfo } from '@snapdeck/gateway/build-info';
import { shortenSecrets } from '@snapdeck/store';
import { registerBuildCommand } from './commands/build.ts';
import { registerDecksCommand } from './commands/decks.ts';
import { registerGcCommand } from './commands/gc.ts';
import { registerKeysCommand } from './commands/keys.ts';
import { registerServeCommand } from './commands/serve.ts';
import { registerStoreCommand } from './commands/store.ts';
import { registerTokensCommand } from './commands/tokens.ts';
import { checkDatabase } from './options.ts';
import { outputOf, setUnfilteredOut } from './output.ts';
import { reportFailure } from './report.ts';

/** Where the CLI writes; the process streams unless a caller (a test) captures them. */
export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

const PROCESS_OUTPUT: CliOutput = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

/**
 * `output` with everything that looks like a key, share token or `pd_` link cut to 12 characters:
 * commander's usage errors (which quote a rejected argument or option value whole), the commands'
 * own errors and reports, import errors naming a JSON member. One filter for every command, since
 * any value can be pasted in the wrong place; the key or token a command prints on purpose goes
 * around it (output.ts printSecret).
 */
function secretSafe(output: CliOutput): CliOutput {
  return { out: (text) => output.out(shortenSecrets(text)), err: (text) => output.err(shortenSecrets(text)) };
}

/** The whole `snapdeck` program. Commander throws instead of exiting (exitOverride): main.ts exits. */
export function createProgram(given: CliOutput = PROCESS_OUTPUT): Command {
  const output = secretSafe(given);
  const info = buildInfo();
  const program = new Command()
    .name('snapdeck')
    .description('Publish trading-card-game catalogs as immutable snapshots and serve them, with decks, over HTTP (/v1).')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ sortSubcommands: false })
    .configureOutput({ writeOut: output.out, writeErr: output.err })
    .version(`snapdeck ${info.version} (commit ${info.commit}, Node.js ${info.node})`, '-V, --version', 'print the version and the commit')
    // `snapdeck --version` is the program's; `store restore --version V` is the command's own.
    .enablePositionalOptions()
    .exitOverride();
  registerBuildCommand(program);
  registerServeCommand(program);
  registerGcCommand(program);
  registerKeysCommand(program);
  registerDecksCommand(program);
  registerTokensCommand(program);
  registerStoreCommand(program);
  setUnfilteredOut(program, given.out);
  // Subcommands are created after exitOverride and the output are set, so they inherit both.
  return program;
}

/** The path of a command below the program: `keys revoke`. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/**
 * Runs the CLI and returns its exit code; never exits. `argv` as node gives it (`from: 'node'`)
 * or the arguments alone (`from: 'user'`).
 */
export async function runCli(argv: readonly string[], options: { from?: 'node' | 'user'; output?: CliOutput } = {}): Promise<number> {
  const program = createProgram(options.output ?? PROCESS_OUTPUT);
  // The program's own writers: secret-looking values already cut short (createProgram).
  const output = outputOf(program);
  let running = '';
  program.hook('preAction', (_program, action) => {
    running = pathOf(action);
  });
  // Before any command's action (after `running` is known, for the message): a --db that does
  // not exist is refused or created, never silently.
  program.hook('preAction', (_program, action) => checkDatabase(action, output.err));
  try {
    await program.parseAsync(argv, { from: options.from ?? 'node' });
    return 0;
  } catch (error) {
    return reportFailure(error, running, output.err);
  }
}
