import { Command } from 'commander';
import { OPERATOR_DEFAULTS, OperatorError } from '@snapdeck/contract';
import { apiKeyKey } from '@snapdeck/gateway/surrogate-keys';
import { KEY_CHANGE_CHECK_MS, KEY_ID_PATTERN, KeyStore, SCOPES, openDatabase, redactSecret, type ApiKey } from '@snapdeck/store';
import { outputOf, printSecret } from '../output.ts';
import { dbOption, quota } from '../options.ts';
import { purgeAfterChange, purgeHelp, purgeTargetsOf, purgeUrlOption } from '../purge.ts';
import { purgeWaitOption } from '../purge-wait.ts';
import { publishAfterChange, preparePublish, publishHelp, publishTimeoutOption } from '../publish.ts';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('Create, list and revoke API keys');

  keys
    .command('create')
    .description('Create an API key and print it, alone, on stdout (it is shown only this once)')
    .requiredOption('--name <name>', 'who the key is for (shown in `keys list`)')
    .option('--scope <scope>', `grant a scope (repeatable): ${SCOPES.join(', ')}`, collect)
    .option('--quota <n>', `requests per 15-minute window (1 to 15 digits)`, quota, OPERATOR_DEFAULTS.keyQuota)
    .addOption(dbOption('SQLite database (created when missing)', 'create'))
    .option('--publish <location>', publishHelp())
    .addOption(publishTimeoutOption())
    .addHelpText('after', '\nExample:\n  npx snapdeck keys create --name partner-a --scope decks:browse:public --scope decks:read:public --quota 10000 --publish s3://my-bucket/snapdeck')
    .action(async (options: { name: string; scope?: string[]; quota: number; db: string; publish?: string; publishTimeout: number }, command: Command) => {
      const publish = preparePublish(options.publish, options.publishTimeout);
      const db = openDatabase(options.db);
      try {
        const { key, record } = new KeyStore(db).create({ name: options.name, scopes: options.scope ?? [], quota: options.quota });
        printSecret(command, key);
        outputOf(command).err(`created ${record.id} (${record.name}), scopes: ${record.scopes.join(' ') || 'none'}, quota ${record.quota}/15 min\n`);
        await publishAfterChange(command, db, options.db, publish, `key ${record.id} is created`);
      } finally {
        db.close();
      }
    });

  keys
    .command('list')
    .description('List keys: id, name, prefix, scopes, quota, state (never the key itself)')
    .addOption(dbOption('SQLite database'))
    .option('--json', 'print JSON instead of a table')
    .action((options: { db: string; json?: boolean }, command: Command) => {
      const { out, err } = outputOf(command);
      const db = openDatabase(options.db);
      try {
        const list = new KeyStore(db).list();
        if (options.json) {
          out(`${JSON.stringify(list, null, 2)}\n`);
          return;
        }
        if (list.length === 0) {
          err('no keys yet: npx snapdeck keys create --name NAME\n');
          return;
        }
        const rows = list.map((k) => [k.id, k.name, `${k.prefix}…`, k.scopes.join(',') || '-', String(k.quota), k.revokedAt ? `revoked ${k.revokedAt}` : 'active', k.createdAt]);
        const header = ['ID', 'NAME', 'PREFIX', 'SCOPES', 'QUOTA', 'STATE', 'CREATED'];
        const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
        for (const row of [header, ...rows]) out(`${row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()}\n`);
      } finally {
        db.close();
      }
    });

  keys
    .command('revoke')
    .description('Revoke a key, named by its id (key_…) or by the key itself; it gets 401 at once')
    .argument('<key-or-id>')
    .addOption(dbOption('SQLite database'))
    .option('--purge <url>', purgeHelp("the key's id, so the cache stops answering it"), purgeUrlOption)
    .option('--publish <location>', publishHelp())
    .addOption(publishTimeoutOption())
    .addOption(purgeWaitOption())
    .addHelpText(
      'after',
      `
With --publish and --purge, the purge is sent once the new store version is current and every
gateway following it says it serves it (npx snapdeck store status --at LOCATION shows them), so
no gateway can put a 200 for the revoked key back into the cache. At most --purge-wait seconds:
past it the purge is sent, the gateways still behind are named and the command exits 1.

Example:
  npx snapdeck keys revoke key_3f9a0c1d2e4b --publish s3://my-bucket/snapdeck --purge http://127.0.0.1:6081/`,
    )
    .action(async (keyOrId: string, options: { db: string; purge?: string[]; publish?: string; publishTimeout: number; purgeWait: number }, command: Command) => {
      const purge = purgeTargetsOf(options.purge);
      const publish = preparePublish(options.publish, options.publishTimeout);
      const db = openDatabase(options.db);
      let revoked: ApiKey | null;
      let published: { location: string; version: string } | null = null;
      try {
        revoked = new KeyStore(db).revoke(keyOrId);
        if (!revoked) {
          // Never the argument whole: it may be a key (or a token pasted by mistake).
          throw new OperatorError(KEY_ID_PATTERN.test(keyOrId) ? `no key has the id ${keyOrId}` : `no key matches ${redactSecret(keyOrId)}`);
        }
        outputOf(command).err(`revoked ${revoked.id} (${revoked.name})\n`);
        published = await publishAfterChange(command, db, options.db, publish, `${revoked.id} is revoked`);
      } finally {
        db.close();
      }
      // Purged once gateways answer 401 for it, so that no request can store a 200 for it
      // meanwhile: gateways on this database see it within KEY_CHANGE_CHECK_MS; gateways
      // following the store once they say they serve the version published.
      const when = published ? { published: { ...published, waitSeconds: options.purgeWait } } : { settleMs: KEY_CHANGE_CHECK_MS + 50 };
      await purgeAfterChange(command, purge, [apiKeyKey(revoked.id)], `${revoked.id} is revoked`, when);
    });
}
