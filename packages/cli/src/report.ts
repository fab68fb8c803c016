import { CommanderError } from 'commander';
import { OperatorError } from '@snapdeck/contract';
import { processUser } from './options.ts';

/**
 * The one place a failure becomes a message and an exit code (the changesets model: commands
 * throw, the entry point reports). `command` is the command's path (`keys revoke`).
 *
 * - CommanderError: a usage error or --help/--version; commander has printed it already.
 * - OperatorError: something the operator can act on (bad input, unreachable storage, another
 *   writer); printed as `snapdeck <command>: <message>`, exit code from the error (1).
 * - A file or folder this process may not write (a container's volume owned by another user, a
 *   read-only filesystem): the path, who this process is and what to do, exit 1.
 * - Anything else (a database that cannot be opened, a bug): its message, exit 1; with
 *   LOG_LEVEL=debug its stack too.
 */
export function reportFailure(error: unknown, command: string, writeErr: (text: string) => void): number {
  if (error instanceof CommanderError) return error.exitCode;
  if (error instanceof OperatorError) {
    writeErr(`snapdeck${command ? ` ${command}` : ''}: ${error.message}\n`);
    return error.exitCode;
  }
  const denied = deniedWrite(error);
  if (denied) {
    writeErr(`snapdeck${command ? ` ${command}` : ''}: ${denied}\n`);
    return 1;
  }
  const debug = process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace';
  const detail = error instanceof Error ? (debug ? (error.stack ?? error.message) : error.message) : String(error);
  writeErr(`snapdeck${command ? ` ${command}` : ''}: ${detail}\n`);
  return 1;
}

const DENIED: Record<string, string> = { EACCES: 'permission denied', EPERM: 'operation not permitted', EROFS: 'read-only filesystem' };

/** The one line for a write the filesystem refused (Node's fs errors carry the code and the path), or null. */
function deniedWrite(error: unknown): string | null {
  const { code, path, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  if (!code || !Object.hasOwn(DENIED, code) || typeof path !== 'string') return null;
  return `cannot ${syscall ?? 'write'} ${path}: ${DENIED[code]} for this process (${processUser()}): make it writable by that user, or mount a volume there it may write`;
}
