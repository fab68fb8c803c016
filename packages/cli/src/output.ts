import type { Command } from 'commander';

/** Where a command writes: its commander output configuration (tests capture it), else the process streams. */
export function outputOf(command: Command): { out(text: string): void; err(text: string): void } {
  const config = command.configureOutput();
  return {
    out: (text) => (config.writeOut ? config.writeOut(text) : process.stdout.write(text)),
    err: (text) => (config.writeErr ? config.writeErr(text) : process.stderr.write(text)),
  };
}
