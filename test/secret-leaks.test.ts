/**
 * No output prints a secret (decisions.md), however a hostile client or a careless operator
 * spells it: a prefix glued to a letter or digit, upper case, percent-encoded (`%5F`, `%5f`, an
 * encoded letter or digit), beside a malformed escape, in an absolute-form request target, in a
 * duplicated or `;`-joined parameter. Each spelling is sent to a running gateway as bytes on the
 * wire; every access-log line and every response header it causes is read, decoded as a reader
 * would decode it, and must not hold the secret's 32 hex digits.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '@snapdeck/cli';
import { startGateway, type RunningGateway } from '@snapdeck/gateway';
import { KeyStore, openDatabase } from '@snapdeck/store';
import { buildGeneratedSnapshots } from './helpers/catalog.ts';
import { tempDir } from './helpers/harness.ts';
import { requestTarget } from './helpers/raw-target.ts';

const BODY = '0123456789abcdef'.repeat(2);
const SECRETS = { key: `sd_live_${BODY}`, token: `st_${BODY}`, link: `pd_${BODY}` } as const;

/** Whether `text` holds a secret's 32 hex digits, in any case, as sent or once or twice decoded. */
export function holdsSecret(text: string): boolean {
  let reading = text.toLowerCase();
  for (let round = 0; round < 3; round += 1) {
    if (reading.includes(BODY)) return true;
    reading = reading.replace(/%([0-9a-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  return reading.includes(BODY);
}

/** Glued to what comes before: a digit, a letter, a request id's or a client name's own text. */
const GLUED = (secret: string): string[] => [`0${secret}`, `e0da5${secret}`, `x${secret}`, `Z${secret.toUpperCase()}`, `app/1.0+x${secret}`];

let work: { dir: string; cleanup: () => Promise<void> };
let gateway: RunningGateway;
let key: string;
const lines: string[] = [];

beforeAll(async () => {
  work = await tempDir('snapdeck-secret-leaks-');
  const snapshots = await buildGeneratedSnapshots(work.dir, { digimon: 5 });
  const dbFile = `${work.dir}/snapdeck.db`;
  const db = openDatabase(dbFile);
  key = new KeyStore(db).create({ name: 'leaks', scopes: ['decks:browse:public', 'decks:read:public'], quota: 1_000_000 }).key;
  db.close();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  gateway = await startGateway({ port: 0, host: '127.0.0.1', snapshots, db: dbFile, pointerTtlMs: 100, log: pino({ level: 'info' }, sink) });
});

afterAll(async () => {
  await gateway?.close();
  await work?.cleanup();
});

/** Sends `target` with `headers`; the response's headers and the log lines it caused. */
async function exchange(target: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: string; logged: string }> {
  const before = lines.length;
  const response = await requestTarget(gateway.url, target, { headers: { 'X-API-Key': key, ...headers } });
  return { status: response.status, headers: JSON.stringify(response.headers), logged: lines.slice(before).join('') };
}

describe('a secret glued to a letter or digit', () => {
  it('is refused as a request id: never echoed, never logged', async () => {
    const leaks: string[] = [];
    for (const secret of Object.values(SECRETS)) {
      for (const id of GLUED(secret).filter((text) => /^[A-Za-z0-9._-]+$/.test(text))) {
        const answer = await exchange('/v1/games', { 'X-Request-Id': id });
        expect(answer.status).toBe(200);
        if (holdsSecret(answer.headers)) leaks.push(`X-Request-Id ${id.slice(0, 12)}…: response header`);
        if (holdsSecret(answer.logged)) leaks.push(`X-Request-Id ${id.slice(0, 12)}…: log`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it('in X-Client, in a path segment or a parameter, is masked in the access log', async () => {
    const leaks: string[] = [];
    let logged = 0;
    for (const secret of Object.values(SECRETS)) {
      for (const glued of GLUED(secret)) {
        for (const [target, headers] of [
          ['/v1/games', { 'X-Client': glued }],
          [`/v1/decks/${encodeURIComponent(glued)}`, {}],
          [`/v1/decks/public?gameId=${encodeURIComponent(glued)}`, {}],
          [`/v1/games/digimon/cards?hitsPerPage=${encodeURIComponent(glued)}`, {}],
        ] as const) {
          const answer = await exchange(target, headers);
          if (answer.logged.includes('"msg":"request"')) logged += 1;
          if (holdsSecret(answer.logged)) leaks.push(`${target.slice(0, 30)} ${JSON.stringify(headers).slice(0, 30)}: log`);
          if (holdsSecret(answer.headers)) leaks.push(`${target.slice(0, 30)}: response header`);
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(logged).toBe(Object.keys(SECRETS).length * GLUED('').length * 4);
  });

  it('in a CLI argument that fails validation, is shown by 12 characters at most', async () => {
    const db = `${work.dir}/snapdeck.db`;
    const cases = [
      ['keys', 'create', '--db', db, '--name', 'n', '--quota', `0${SECRETS.key}`],
      ['keys', 'create', '--db', db, '--name', 'n', '--quota', `a${SECRETS.link}`],
      ['tokens', 'share', '--db', db, `1${SECRETS.link}`],
      ['tokens', 'private', '--db', db, `Q${SECRETS.token.toUpperCase()}`],
      ['keys', 'revoke', '--db', db, `9${SECRETS.key}`],
    ];
    for (const args of cases) {
      let output = '';
      const code = await runCli(args, { from: 'user', output: { out: (text) => void (output += text), err: (text) => void (output += text) } });
      expect(code, args.join(' ')).not.toBe(0);
      expect(holdsSecret(output), `${args.slice(0, 2).join(' ')}: ${output.slice(0, 200)}`).toBe(false);
      // The value was quoted, cut: the case reached the message under test.
      expect(output, args.join(' ')).toMatch(/(sd_live_|st_|pd_)[0-9a-z]{0,9}…/i);
    }
  });
});
