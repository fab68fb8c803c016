// The version has one home, package.json (changesets bumps it); the packaged build inlines it.
import packageJson from '../package.json' with { type: 'json' };

export const CLIENT_NAME = '@snapdeck/client';
export const CLIENT_VERSION: string = packageJson.version;
