import { Command, CommanderError } from 'commander';
import { registerBuildCommand } from './commands/build.ts';
import { registerDecksCommand } from './commands/decks.ts';
import { registerGcCommand } from './commands/gc.ts';
import { registerKeysCommand } from './commands/keys.ts';
import { registerServeCommand } from './commands/serve.ts';
import { registerStoreCommand } from './commands/store.ts';
import { registerTokensCommand } from './commands/tokens.ts';

const program = new Command()
  .name('snapdeck')
  .description('Publish trading-card-game catalogs as immutable snapshots and serve them, with decks, over HTTP (/v1).')
  .showHelpAfterError('(run with --help for usage)')
  .configureHelp({ sortSubcommands: false });

registerBuildCommand(program);
registerServeCommand(program);
registerGcCommand(program);
registerKeysCommand(program);
registerDecksCommand(program);
registerTokensCommand(program);
registerStoreCommand(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  console.error(`snapdeck: ${(error as Error).message}`);
  process.exit(1);
}
