import type { Command } from 'commander';

/** Where a command writes: its commander output configuration (tests capture it), else the process streams. */
export function outputOf(command: Command): { out(text: string): void; err(text: string): void } {
  const config = command.configureOutput();
  return {
    out: (text) => (config.writeOut ? config.writeOut(text) : process.stdout.write(text)),
    err: (text) => (config.writeErr ? config.writeErr(text) : process.stderr.write(text)),
  };
}

/** Each program's stdout before secrets are shortened on it (program.ts sets it). */
const UNFILTERED_OUT = new WeakMap<Command, (text: string) => void>();

/** Records `program`'s stdout as it is, for printSecret. */
export function setUnfilteredOut(program: Command, out: (text: string) => void): void {
  UNFILTERED_OUT.set(program, out);
}

/**
 * Prints the one secret a command exists to print (`keys create`, `tokens share|private`), alone
 * on a line of stdout, so that `KEY=$(npx snapdeck keys create …)` captures it. Every other write
 * to stdout or stderr has secret-looking values cut short (program.ts); this is the only way past.
 */
export function printSecret(command: Command, secret: string): void {
  let program = command;
  while (program.parent) program = program.parent;
  (UNFILTERED_OUT.get(program) ?? ((text: string) => process.stdout.write(text)))(`${secret}\n`);
}
