/**
 * A failure the operator can act on — bad input, unreachable storage, a conflicting writer — as
 * opposed to a bug. Its message says what happened and what to do in the library's own terms,
 * never how one front end spells it (no CLI flags or commands: the CLI adds those, knowing which
 * flag was used). The CLI prints it after the command's name and exits with `exitCode`
 * (packages/cli/src/report.ts); anything else reaching the CLI's top level is reported as a bug.
 * The changesets model: one error base, commands throw, one place exits.
 */
export class OperatorError extends Error {
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? 1;
  }
}
