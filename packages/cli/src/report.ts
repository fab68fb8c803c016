import { CommanderError } from 'commander';
import { OperatorError } from '@snapdeck/contract';

/**
 * The one place a failure becomes a message and an exit code (the changesets model: commands
 * throw, the entry point reports). `command` is the command's path (`keys revoke`).
 *
 * - CommanderError: a usage error or --help/--version; commander has printed it already.
 * - OperatorError: something the operator can act on (bad input, unreachable storage, another
 *   writer); printed as `snapdeck <command>: <message>`, exit code from the error (1).
 * - Anything else (a database that cannot be opened, a port in use, a bug): its message, exit 1;
 *   with LOG_LEVEL=debug its stack too.
 */
export function reportFailure(error: unknown, command: string, writeErr: (text: string) => void): number {
  if (error instanceof CommanderError) return error.exitCode;
  if (error instanceof OperatorError) {
    writeErr(`snapdeck${command ? ` ${command}` : ''}: ${error.message}\n`);
    return error.exitCode;
  }
  const debug = process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace';
  const detail = error instanceof Error ? (debug ? (error.stack ?? error.message) : error.message) : String(error);
  writeErr(`snapdeck${command ? ` ${command}` : ''}: ${detail}\n`);
  return 1;
}
