import { OperatorError } from '@snapdeck/contract';

/** Another build moved the pointer while this one was writing: this version is not made current. */
export class PublishConflictError extends OperatorError {
  constructor(readonly game: string, readonly version: string, readonly expected: string | null, readonly found: string | null) {
    const what = found === expected
      ? `${game}/current.json could not be replaced (another writer held it at that moment)`
      : `another build made ${found ?? 'nothing'} current for ${game} while this build was writing ${version}`;
    super(`${what}; version ${version} is complete but was NOT made current (current stays ${found ?? 'unset'}). Run the build again to publish this catalog as a newer version.`);
  }
}

/** Files of a freshly written version do not match its manifest: it is not made current. */
export class VersionVerificationError extends OperatorError {
  constructor(readonly game: string, readonly version: string, readonly problems: string[]) {
    const shown = problems.slice(0, 5).map((p) => `  ${p}`).join('\n');
    const more = problems.length > 5 ? `\n  … and ${problems.length - 5} more` : '';
    super(`${game}: version ${version} was NOT made current: ${problems.length} file(s) in storage do not match its manifest:\n${shown}${more}\nRun the build again to rewrite them.`);
  }
}
