/**
 * One reading of a presented key, shared by `keys revoke` and the gateway's
 * X-API-Key (normalizeApiKey in @snapdeck/store), and no error message ever prints a key, a token
 * or a `pd_` link whole. Before the fix `keys revoke " sd_live_…"` (a space) or an upper-case key
 * failed and printed the full key on stderr, while the gateway trimmed the header and accepted the
 * spaced form.
 *
 * Real `snapdeck` processes: the CLI on a SQLite file, a `serve --db` gateway on the same file; a
 * raw socket sends the header bytes exactly as written.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '@snapdeck/contract';
import { buildGeneratedSnapshots } from './helpers/catalog.ts';
import { runCli, startCliGateway, type CliGateway } from './helpers/cli-gateway.ts';
import { tempDir } from './helpers/harness.ts';

let dir: string;
let cleanup: () => Promise<void>;
let db: string;
let gateway: CliGateway;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('snapdeck-key-forms-'));
  const snapshots = await buildGeneratedSnapshots(dir, { digimon: 3 });
  db = join(dir, 'keys.db');
  await newKey();
  gateway = await startCliGateway(['--snapshots', snapshots, '--db', db]);
});
afterAll(async () => {
  await gateway?.stop();
  await cleanup?.();
});

async function newKey(): Promise<string> {
  const created = await runCli(['keys', 'create', '--name', 'forms', '--db', db]);
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim();
}

/** GET /v1/games with the header line written byte for byte: `X-API-Key:${raw}`. */
function statusWithRawHeader(raw: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET /v1/games HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-API-Key:${raw}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
  });
}

const FORMS: Array<[string, (key: string) => string, boolean]> = [
  ['as created', (key) => key, true],
  ['a leading space', (key) => ` ${key}`, true],
  ['spaces and a tab around it', (key) => `  \t${key} \t`, true],
  ['upper case', (key) => key.toUpperCase(), false],
  ['upper-case hex only', (key) => `sd_live_${key.slice(8).toUpperCase()}`, false],
  ['a space inside', (key) => `${key.slice(0, 20)} ${key.slice(20)}`, false],
  ['one character short', (key) => key.slice(0, -1), false],
  ['one character more', (key) => `${key}0`, false],
];

describe('one reading of a key, on the command line and in X-API-Key', () => {
  it.each(FORMS)('%s: the gateway and `keys revoke` agree; no message shows the key', async (_name, form, accepted) => {
    const key = await newKey();
    const presented = form(key);
    // The header as a client sends it (a raw socket: fetch would trim it).
    const answer = await statusWithRawHeader(presented);
    expect(answer.status).toBe(accepted ? 200 : 401);
    if (!accepted) expect(answer.text).toContain(JSON.stringify({ error: ERRORS.invalidApiKey }));

    const revoked = await runCli(['keys', 'revoke', presented, '--db', db]);
    expect(revoked.code, revoked.stderr).toBe(accepted ? 0 : 1);
    for (const output of [revoked.stdout, revoked.stderr, answer.text]) {
      expect(output).not.toContain(key);
      expect(output).not.toContain(presented.trim());
      expect(output.toLowerCase()).not.toContain(key.slice(8, 30));
    }
    if (accepted) {
      expect(revoked.stderr).toMatch(/^revoked key_[0-9a-f]{12} \(forms\)\n$/);
      expect((await statusWithRawHeader(key)).status).toBe(401);
    } else {
      expect(revoked.stderr).toBe(`snapdeck keys revoke: no key matches ${JSON.stringify(`${presented.trim().slice(0, 12)}…`)} (${presented.trim().length} characters; the rest is not shown)\n`);
      expect((await statusWithRawHeader(key)).status).toBe(200);
    }
  });

  it('a token or pd_ link given to `keys revoke` by mistake is not printed either', async () => {
    for (const secret of [`pd_${'ab'.repeat(16)}`, `st_${'cd'.repeat(16)}`, `SD_LIVE_${'EF'.repeat(16)}`]) {
      const run = await runCli(['keys', 'revoke', secret, '--db', db]);
      expect(run.code).toBe(1);
      expect(run.stderr).not.toContain(secret);
      expect(run.stderr).toContain(secret.slice(0, 12));
    }
  });

  it('a key id is named as it is', async () => {
    const run = await runCli(['keys', 'revoke', 'key_000000000000', '--db', db]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('snapdeck keys revoke: no key has the id key_000000000000\n');
  });
});
