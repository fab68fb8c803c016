/**
 * The secret scan itself (test/helpers/secret-scan.ts, test/setup/scan-secrets.ts): what it finds,
 * and its one allowance (the key or token a command prints alone on stdout). A scan that found
 * nothing because it looked nowhere would make the "0 secrets" target meaningless.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli-gateway.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { reportSecretFindings, scanCliOutput, scanForSecrets, scannedLog, secretScan } from './helpers/secret-scan.ts';
import { S3_TEST_SECRET } from './helpers/test-credentials.ts';

const KEY = `sd_live_${'0123456789abcdef'.repeat(2)}`;
const SHARE = `st_${'ab'.repeat(16)}`;
const LINK = `pd_${'cd'.repeat(16)}`;

/** The findings so far, taken (so that they do not fail this test in afterEach). */
const taken = (): string[] => secretScan.findings.splice(0);

afterEach(() => {
  secretScan.findings.length = 0;
});

describe('the secret scan', () => {
  it('finds keys, share tokens and pd_ links in any case, and registered credentials', () => {
    // Glued to the text before it (`first_…` ends in a share token) is still the secret.
    for (const text of [KEY, `x-api-key: ${KEY}`, KEY.toUpperCase(), `?token=${SHARE}`, `"${LINK}"`, `AWS secret ${S3_TEST_SECRET}`, `0${KEY}`, `e0da5${LINK}`, `first_${'ab'.repeat(16)}`]) {
      scanForSecrets('a test output', text);
      expect(taken(), text).toHaveLength(1);
    }
    // What is not a secret: a prefix (keys list), a key id, a malformed key, a redacted form.
    for (const text of ['sd_live_0123…', 'key_0123456789ab', 'sd_live_0123', 'st_xyz', 'token=[REDACTED]', `first_${'ab'.repeat(15)}`]) {
      scanForSecrets('a test output', text);
      expect(taken(), text).toEqual([]);
    }
  });

  it('allows exactly the key `keys create` prints alone on stdout, and the token `tokens share|private` prints', () => {
    scanCliOutput(['keys', 'create', '--name', 'x'], `${KEY}\n`, 'created key_0123456789ab (x)\n');
    scanCliOutput(['tokens', 'share', 'deck-id'], `${SHARE}\n`, '');
    scanCliOutput(['tokens', 'private', 'deck-id', '--db', 'f.db'], `${LINK}\n`, '');
    expect(taken()).toEqual([]);

    scanCliOutput(['keys', 'create'], `${KEY}\n`, `created ${KEY}\n`); // on stderr
    scanCliOutput(['keys', 'create'], `${KEY}\n${KEY}\n`, ''); // not alone
    scanCliOutput(['keys', 'list'], `${KEY}\n`, ''); // another command
    scanCliOutput(['tokens', 'share'], `${LINK}\n`, ''); // the other kind of token
    scanCliOutput(['tokens', 'private'], `created ${LINK}\n`, ''); // not alone
    expect(taken().map((finding) => finding.split(':')[0])).toEqual([
      'snapdeck keys create stderr',
      'snapdeck keys create stdout', // two keys: each found
      'snapdeck keys create stdout',
      'snapdeck keys list stdout',
      'snapdeck tokens share stdout',
      'snapdeck tokens private stdout',
    ]);
  });

  it('a failing report names where the secret was and shows only its prefix', () => {
    scanForSecrets('GET /v1/x → 400', `{"error":"${KEY}"}`);
    expect(() => reportSecretFindings()).toThrow(/GET \/v1\/x → 400: sd_live_0123… \(40 characters\)/);
    expect(() => reportSecretFindings()).not.toThrow();
  });

  it('scans every log line of an in-process gateway', () => {
    const log = scannedLog('gateway');
    log.info({ url: '/v1/decks/x?token=[REDACTED]' }, 'request');
    expect(taken()).toEqual([]);
    log.warn({ url: `/v1/decks/x?token=${LINK}` }, 'request');
    expect(taken()).toEqual(['gateway log: pd_cdcdcdcdc… (35 characters)']);
  });

  it('scans every local response a test fetches, headers and body', async () => {
    const server = createServer((request, response) => {
      if (request.url === '/header') response.setHeader('X-Leak', LINK);
      response.end(request.url === '/body' ? `{"detail":"${SHARE}"}` : 'fine');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const before = secretScan.scanned;
      for (const path of ['/body', '/header', '/clean']) await (await fetch(`http://127.0.0.1:${port}${path}`)).text();
      await waitFor(async () => secretScan.scanned >= before + 3, 5000, 'the responses were not scanned');
      expect(taken().map((finding) => finding.split(':')[0])).toEqual(['GET /body → 200', 'GET /header → 200']);
    } finally {
      server.close();
    }
  });

  it('scans what a real command prints: the key `keys create` prints passes, `keys revoke KEY` is clean', async () => {
    const { dir, cleanup } = await tempDir('snapdeck-scan-');
    try {
      const created = await runCli(['keys', 'create', '--name', 'scan', '--db', join(dir, 'k.db')]);
      expect(created.code, created.stderr).toBe(0);
      expect(taken()).toEqual([]);
      // `keys revoke` given the key must not print it back (one reading of a presented key): its output is scanned, clean.
      const before = secretScan.scanned;
      const revoked = await runCli(['keys', 'revoke', created.stdout.trim(), '--db', join(dir, 'k.db')]);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(secretScan.scanned).toBe(before + 2);
      expect(taken()).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
