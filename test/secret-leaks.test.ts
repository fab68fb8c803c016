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

/** Sends `target` with `headers`; the response's headers and body, and the log lines it caused. */
async function exchange(target: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: string; logged: string }> {
  const before = lines.length;
  const response = await requestTarget(gateway.url, target, { headers: { 'X-API-Key': key, ...headers } });
  return { status: response.status, headers: `${JSON.stringify(response.headers)}\n${response.body.toString()}`, logged: lines.slice(before).join('') };
}

/**
 * The spellings of `secret` in a URL that mean it: `_` as `%5F` or `%5f`, a letter or digit
 * encoded, the whole of it encoded, encoded twice, upper-cased, followed by a malformed escape.
 */
function encodings(secret: string): string[] {
  const underscores = (escape: string) => secret.replaceAll('_', escape);
  const letter = secret.indexOf('_') + 1;
  const encodedLetter = `${secret.slice(0, letter)}%${secret.charCodeAt(letter).toString(16)}${secret.slice(letter + 1)}`;
  const all = [...secret].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('');
  return [
    underscores('%5F'),
    underscores('%5f'),
    `%${secret.charCodeAt(0).toString(16)}${secret.slice(1)}`,
    encodedLetter,
    all,
    underscores('%255F'),
    underscores('%5F').toUpperCase(),
    `${underscores('%5F')}%ZZ`,
    `%ZZ${secret}`,
    `${secret}%E0%A4%A`,
  ];
}

/** Where a URL may carry a value: the path, each allowed parameter, duplicated and `;`-joined parameters. */
function targets(value: string): string[] {
  return [
    `/v1/decks/${value}`,
    `/v1/decks/${value}/text?format=snapdeck`,
    `/v1/games/digimon/cards?hitsPerPage=${value}`,
    `/v1/games/digimon/cards/${value}`,
    `/v1/decks/public?gameId=digimon&limit=${value}&sort=${value}`,
    `/v1/decks/public?gameId=digimon&updatedSince=${value}`,
    `/v1/decks/public?gameId=${value}`,
    `/v1/decks/public?gameId=digimon&gameId=${value}`,
    `/v1/decks/public?gameId=digimon;token=${value}`,
    `/v1/decks/public?gameId=digimon;since=${value}&format=${value}`,
    `/v1/decks/abc?since=${value}`,
    `/v1/decks/changes?gameId=digimon&since=${value}&limit=${value}`,
  ];
}

describe('a percent-encoded secret', () => {
  it('is masked in the access log by what it means, in origin and absolute form', async () => {
    const leaks: string[] = [];
    let sent = 0;
    for (const secret of Object.values(SECRETS)) {
      for (const spelling of encodings(secret)) {
        for (const target of targets(spelling)) {
          for (const form of [target, `http://127.0.0.1${target}`]) {
            const answer = await exchange(form);
            sent += 1;
            expect(answer.status, form).toBeLessThan(500);
            if (holdsSecret(answer.logged)) leaks.push(`${form.slice(0, 60)}: log ${answer.logged.slice(0, 160)}`);
            if (holdsSecret(answer.headers)) leaks.push(`${form.slice(0, 60)}: response`);
          }
        }
      }
    }
    expect(leaks.slice(0, 10)).toEqual([]);
    expect(sent).toBe(3 * 10 * 12 * 2);
  });

  it('the spellings above are the secret to a decoder (the corpus tests what it claims)', () => {
    for (const secret of Object.values(SECRETS)) {
      for (const spelling of encodings(secret)) expect(holdsSecret(spelling), spelling).toBe(true);
    }
  });
});

describe('a secret glued to a letter or digit', () => {
  it('is refused as a request id: never echoed, never logged', async () => {
    const leaks: string[] = [];
    for (const secret of Object.values(SECRETS)) {
      for (const id of GLUED(secret).filter((text) => /^[A-Za-z0-9._-]+$/.test(text))) {
        const answer = await exchange('/v1/games', { 'X-Request-Id': id });
        expect(answer.status).toBe(200);
        if (holdsSecret(answer.headers)) leaks.push(`X-Request-Id ${id.slice(0, 12)}…: response`);
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
          if (holdsSecret(answer.headers)) leaks.push(`${target.slice(0, 30)}: response`);
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
