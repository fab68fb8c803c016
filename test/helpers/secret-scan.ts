/**
 * The target "0 secrets in stdout, stderr, logs, metrics or error bodies over the whole test
 * suite": every output a test captures through the shared helpers is scanned here —
 *
 * - every response a test gets with fetch from 127.0.0.1 / localhost (headers and body, any path:
 *   the API, /metrics, /readyz, Varnish in front), by test/setup/scan-secrets.ts;
 * - stdout and stderr of every `snapdeck` command run with runCli, and of every `snapdeck serve`
 *   started with startCliGateway (its logs included), in test/helpers/cli-gateway.ts;
 * - every log line of the in-process gateways of test/helpers/harness.ts and decks.ts (scannedLog:
 *   info level, so the access log and every warning are scanned).
 *
 * A secret is a well-formed API key, share token or `pd_` link in any case (`sd_live_`, `st_`,
 * `pd_` and 32 hex digits, glued to other text or not), or a credential a helper registered (the S3 test server's secret key;
 * a Redis password). The one allowance: the stdout of `keys create` when it is exactly one key and
 * a newline, and of `tokens share` / `tokens private` when it is exactly one token of that kind
 * and a newline (decisions.md: the key or token alone, on stdout). Anything else fails the test
 * that captured it, in afterEach (or afterAll for beforeAll's outputs).
 */

import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export interface SecretScanState {
  /** Outputs scanned so far in this worker. */
  scanned: number;
  /** Findings not yet reported. */
  findings: string[];
  /** Credentials a helper made, each with what it is. */
  registered: Map<string, string>;
}

const KEY = Symbol.for('snapdeck.secretScan');
const holder = globalThis as unknown as Record<symbol, SecretScanState | undefined>;
export const secretScan: SecretScanState = (holder[KEY] ??= { scanned: 0, findings: [], registered: new Map() });

/**
 * Well-formed secrets, in any case (an upper-cased key printed back is still the key), wherever
 * they stand: glued to a letter or digit before them too.
 */
const SECRET_PATTERN = /(?:sd_live_|st_|pd_)[0-9a-f]{32}/gi;

/** Makes `value` a secret every later scan looks for (short values would match everything: refused). */
export function registerSecret(value: string, what: string): void {
  if (value.length < 12) throw new Error(`registerSecret: ${what} is too short to scan for; use a distinctive value`);
  secretScan.registered.set(value, what);
}

/** What of a found secret a report may show. */
const shown = (secret: string) => `${secret.slice(0, 12)}… (${secret.length} characters)`;

/** Scans one captured output; `where` names it in a finding. */
export function scanForSecrets(where: string, text: string): void {
  secretScan.scanned += 1;
  for (const match of text.matchAll(SECRET_PATTERN)) secretScan.findings.push(`${where}: ${shown(match[0])}`);
  for (const [value, what] of secretScan.registered) {
    if (text.includes(value)) secretScan.findings.push(`${where}: ${what}`);
  }
}

/** The one secret `snapdeck <args>` may print, alone on stdout, or null. */
function allowedStdout(args: readonly string[]): RegExp | null {
  const words = args.filter((arg) => !arg.startsWith('-'));
  const command = `${words[0] ?? ''} ${words[1] ?? ''}`;
  if (command === 'keys create') return /^sd_live_[0-9a-f]{32}\n$/;
  if (command === 'tokens share') return /^st_[0-9a-f]{32}\n$/;
  if (command === 'tokens private') return /^pd_[0-9a-f]{32}\n$/;
  return null;
}

/** Scans a finished CLI command's output, allowing exactly what decisions.md has it print. */
export function scanCliOutput(args: readonly string[], stdout: string, stderr: string): void {
  const label = `snapdeck ${args.slice(0, 2).join(' ')}`;
  const allowed = allowedStdout(args);
  if (allowed && allowed.test(stdout)) secretScan.scanned += 1;
  else scanForSecrets(`${label} stdout`, stdout);
  scanForSecrets(`${label} stderr`, stderr);
}

/**
 * A pino logger for an in-process gateway whose every line is scanned (at `info`, or
 * TEST_LOG_LEVEL; with TEST_LOG_LEVEL set the lines are also printed, as before).
 */
export function scannedLog(where: string): Logger {
  const shown = process.env.TEST_LOG_LEVEL;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = chunk.toString();
      scanForSecrets(`${where} log`, line);
      if (shown) process.stdout.write(line);
      done();
    },
  });
  return pino({ level: shown ?? 'info' }, sink);
}

/** Throws (failing the current test or hook) when anything was found since the last report. */
export function reportSecretFindings(): void {
  const findings = secretScan.findings.splice(0);
  if (findings.length > 0) {
    throw new Error(`${findings.length} captured output(s) contain a secret (none may):\n${[...new Set(findings)].slice(0, 20).join('\n')}`);
  }
}
