/**
 * vitest setup file: every response a test gets with fetch from a local server (127.0.0.1,
 * localhost: gateways, Varnish in front of them), any path, is scanned for secrets — its headers
 * and its body (test/helpers/secret-scan.ts, which also scans the CLI's output). A finding fails
 * the test that got it, in afterEach (afterAll for beforeAll's responses).
 *
 * SNAPDECK_SECRET_SCAN_COUNT=FILE appends, per test file, how many outputs were scanned.
 */
import { appendFileSync } from 'node:fs';
import { afterAll, afterEach } from 'vitest';
import { registerSecret, reportSecretFindings, scanForSecrets, secretScan } from '../helpers/secret-scan.ts';
import { S3_TEST_SECRET } from '../helpers/test-credentials.ts';

registerSecret(S3_TEST_SECRET, 'the S3 test secret access key');

const LOCAL = new Set(['127.0.0.1', 'localhost', '[::1]']);
const innerFetch = globalThis.fetch;
const pending = new Set<Promise<void>>();

globalThis.fetch = async function scanningFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  const response = await innerFetch(input, init);
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  if (!LOCAL.has(url.hostname)) return response;
  const where = `${init?.method ?? 'GET'} ${url.pathname} → ${response.status}`;
  const headers = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
  const done: Promise<void> = response
    .clone()
    .text()
    .then((body) => scanForSecrets(where, `${headers}\n\n${body}`))
    // A body cut short (a server stopped on purpose): the headers are still scanned.
    .catch(() => scanForSecrets(where, headers))
    .finally(() => pending.delete(done));
  pending.add(done);
  return response;
};

async function report(): Promise<void> {
  await Promise.all([...pending]);
  reportSecretFindings();
}

afterEach(report);
afterAll(async () => {
  await report();
  const file = process.env.SNAPDECK_SECRET_SCAN_COUNT;
  if (file) appendFileSync(file, `${secretScan.scanned}\n`);
});
