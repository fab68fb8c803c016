/**
 * The operators' guide, followed line by line, so that it cannot drift from the product: the block
 * of docs/operators/day-one.md ("Day one, step by step") is run in order from an empty bucket on
 * moto, with Redis and the shipped Varnish configuration in front of two `serve --store` gateways.
 * Only what cannot be literal on a test machine is substituted (the bucket name, ports, /var and
 * /etc folders, Redis's host); every `npx snapdeck` line runs as written. A step that fails, or a
 * `curl` whose `# → STATUS` comment does not hold, fails the test with the guide's line. Every other
 * `npx snapdeck` line of docs/operators/ is checked against the command's `--help`, so no flag the
 * guide names can disappear unnoticed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliGateway, runCli, startCliGateway } from './helpers/cli-gateway.ts';
import { idGenerator } from './helpers/decks.ts';
import { freePort, killOnExit, stopProcess } from './helpers/processes.ts';
import { type GuideLine, ROOT, guideLines, markdownFiles, shBlockAfter } from './helpers/readme-guide.ts';
import { startRedisServer, type RedisTestServer } from './helpers/redis-server.ts';
import { startS3Server, type S3TestServer } from './helpers/s3-server.ts';
import { ensureVarnishInstalled, shippedBackendsFor, varnishd } from './helpers/varnish-server.ts';
import { tempDir } from './helpers/harness.ts';

const GUIDE = '# Day one, step by step';
const SHIPPED_GATEWAY_PORTS = ['8787', '8788'];

let s3: S3TestServer;
let redis: RedisTestServer;
let work: { dir: string; cleanup: () => Promise<void> };
const gateways: CliGateway[] = [];
const background: ChildProcess[] = [];

beforeAll(async () => {
  ensureVarnishInstalled();
  [s3, redis] = await Promise.all([startS3Server(), startRedisServer()]);
  work = await tempDir('snapdeck-guide-');
  // varnishd drops to its own users, which must read the VCL and its work folder.
  await chmod(work.dir, 0o755);
});

afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await Promise.all(background.map((child) => stopProcess(child, 5000)));
  await Promise.all([s3?.stop(), redis?.stop()]);
  await work?.cleanup();
});

/** What the test machine puts where the guide names a production host, port or folder. */
interface Places {
  bucket: string;
  ports: Map<string, string>;
  varnishPort: number;
}

function localize(text: string, places: Places): string {
  let out = text.replaceAll('s3://cards-bucket', `s3://${places.bucket}`);
  for (const [shipped, port] of places.ports) out = out.replaceAll(shipped, port);
  return out
    .replaceAll('http://127.0.0.1/', `http://127.0.0.1:${places.varnishPort}/`)
    .replaceAll('-a :80 ', `-a 127.0.0.1:${places.varnishPort} `)
    .replaceAll('redis://redis:6379', redis.url)
    .replaceAll('/var/lib/snapdeck', join(work.dir, 'lib'))
    .replaceAll('/var/cache/snapdeck', join(work.dir, 'cache'))
    .replaceAll('/etc/varnish', join(work.dir, 'etc-varnish'))
    .replaceAll(/\$\(cat ([\w.-]+)\)/g, (_, file: string) => readFileAt(file));
}

const files = new Map<string, string>();
const readFileAt = (name: string): string => {
  const content = files.get(name);
  if (content === undefined) throw new Error(`the guide reads ${name} before a step wrote it`);
  return content.trim();
};
/** A relative path of the guide (data/catalog, deploy/…, exports/…): the checkout's, or the work folder's. */
const resolvePath = (path: string): string => (path.startsWith('/') ? path : /^(data|deploy)\//.test(path) ? join(ROOT, path) : join(work.dir, path));

/** Today's exports: three public decks of the default catalog, one import line each. */
async function writeExports(): Promise<void> {
  const ids = (await readFile(join(ROOT, 'data', 'catalog', 'digimon.jsonl'), 'utf8')).split('\n').slice(0, 8).map((line) => (JSON.parse(line) as { id: string }).id);
  const newId = idGenerator(24);
  const now = new Date().toISOString();
  const lines = [0, 1, 2].map((n) =>
    JSON.stringify({ id: newId(), gameId: 'digimon', name: `Guide deck ${n}`, ownerDisplayName: 'operator', visibility: 'public', createdAt: now, updatedAt: now, cards: ids.slice(n, n + 4).map((cardId) => ({ cardId, quantity: 2 })) }),
  );
  await mkdir(join(work.dir, 'exports'), { recursive: true });
  await writeFile(join(work.dir, 'exports', 'today.jsonl'), `${lines.join('\n')}\n`);
}

/** Runs one line of the guide; `env` carries what earlier `export` lines set. */
async function step(line: GuideLine, env: Record<string, string>, places: Places, log: string[]): Promise<void> {
  const [command, ...args] = line.words;
  const where = `docs/operators/day-one.md line: ${line.text}`;
  if (command === 'export') {
    const [name, value] = args[0]!.split(/=(.*)/s);
    env[name!] = value!;
  } else if (command === 'aws') {
    // `aws s3 mb s3://BUCKET --region R`: what the AWS CLI would send, to moto.
    expect(args.slice(0, 2), where).toEqual(['s3', 'mb']);
    const region = args[args.indexOf('--region') + 1]!;
    const bucket = args[2]!.replace('s3://', '');
    const client = new S3Client({ region, endpoint: s3.env.SNAPDECK_S3_ENDPOINT, forcePathStyle: true, credentials: { accessKeyId: s3.env.AWS_ACCESS_KEY_ID!, secretAccessKey: s3.env.AWS_SECRET_ACCESS_KEY! } });
    await client.send(new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: { LocationConstraint: region as never } }));
  } else if (command === 'npx' && args[0] === 'snapdeck') {
    const cli = args.slice(1).map((word) => (/^(data|exports)\//.test(word) ? resolvePath(word) : word));
    if (line.background) {
      expect(cli[0], `only gateways run in the background: ${where}`).toBe('serve');
      gateways.push(await startCliGateway(cli.slice(1), { env: { ...s3.env, ...env }, timeoutMs: 60_000 }));
      return;
    }
    const result = await runCli(cli, { env: { ...s3.env, ...env }, timeoutMs: 120_000 });
    log.push(`$ ${line.text}\n${result.stderr.trim()}`);
    expect(result.code, `${where}\n${result.stderr}`).toBe(0);
    if (line.redirect) files.set(line.redirect, result.stdout);
  } else if (command === 'cp') {
    const target = args.at(-1)!;
    await mkdir(target, { recursive: true, mode: 0o755 });
    for (const source of args.slice(0, -1)) {
      // backends.vcl lists the shipped gateway ports; the test's gateways listen on free ones.
      const content = source.endsWith('backends.vcl') ? await shippedBackendsFor([...places.ports.values()].map(Number)) : await readFile(resolvePath(source), 'utf8');
      await writeFile(join(target, source.split('/').at(-1)!), content, { mode: 0o644 });
    }
  } else if (command === 'varnishd') {
    // As written, plus what a test needs: the foreground, a private work folder, no admin port.
    const child = spawn(varnishd(), ['-F', '-n', join(work.dir, 'varnishd'), '-T', 'none', ...args], { stdio: 'ignore' });
    killOnExit(child);
    background.push(child);
    let failed: Error | null = null;
    child.once('error', (error) => (failed = error));
    await until(async () => {
      if (failed) throw new Error(`${where}: ${failed.message}`);
      return (await fetch(`http://127.0.0.1:${places.varnishPort}/healthz`).catch(() => null)) !== null;
    }, 30_000, where);
  } else if (command === 'curl') {
    await curl(args, line, where);
  } else {
    throw new Error(`the guide's step runner does not know ${command}: ${where}`);
  }
}

/** `curl [-fsS] [-H "Name: value"]... URL  # → STATUS [once …]`: the status must be STATUS (retried for 60 s when the comment says "once"). */
async function curl(args: string[], line: GuideLine, where: string): Promise<void> {
  const expected = Number(/→ (\d{3})/.exec(line.comment)?.[1] ?? '200');
  const headers = new Headers();
  for (let i = 0; i < args.length; i++) if (args[i] === '-H') headers.append(...(args[++i]!.split(/:\s*(.*)/s).slice(0, 2) as [string, string]));
  const url = args.find((a) => a.startsWith('http'))!;
  const get = async () => (await fetch(url, { headers, signal: AbortSignal.timeout(10_000) })).status;
  if (/\bonce\b/.test(line.comment)) await until(async () => (await get().catch(() => 0)) === expected, 60_000, where);
  else expect(await get(), where).toBe(expected);
}

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not done within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("the operators' guide", () => {
  it('"Day one, step by step" runs as written, from an empty bucket to a revoked key', async () => {
    const places: Places = { bucket: `guide-${randomBytes(4).toString('hex')}`, ports: new Map(), varnishPort: await freePort() };
    for (const shipped of SHIPPED_GATEWAY_PORTS) places.ports.set(shipped, String(await freePort()));
    await writeExports();
    const block = shBlockAfter(GUIDE);
    expect(guideLines(block).length).toBeGreaterThan(10);
    const env: Record<string, string> = {};
    const log: string[] = [];
    // $(cat FILE) is read when its line runs, not before: localize each line again at its turn.
    for (const raw of guideLines(block)) {
      const started = Date.now();
      await step(guideLines(localize(raw.text, places))[0]!, env, places, log);
      log.push(`${((Date.now() - started) / 1000).toFixed(1)} s  ${raw.text.slice(0, 100)}`);
    }
    console.log(log.filter((entry) => !entry.startsWith('$')).join('\n'));
    expect(gateways).toHaveLength(2);
    // The key was revoked through the store: both gateways refuse it directly too.
    const key = readFileAt('partner-a.key');
    for (const g of gateways) expect((await fetch(`${g.url}/v1/games`, { headers: { 'X-API-Key': key } })).status).toBe(401);
  }, 300_000);

  it('names only flags its commands have (every npx snapdeck line of the guide against --help)', async () => {
    const pages = markdownFiles().filter((file) => file.startsWith('docs/operators/'));
    const blocks = pages.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!));
    // Program-level lines (`npx snapdeck --help`, `--version`) name no command: test/docs-commands.test.ts checks them.
    const lines = blocks.flatMap(guideLines).filter((line) => line.words[0] === 'npx' && line.words[1] === 'snapdeck' && !line.words[2]?.startsWith('-'));
    expect(lines.length).toBeGreaterThan(10);
    const helps = new Map<string, string>();
    for (const line of lines) {
      const words = line.words.slice(2);
      const command = words.slice(0, words[0] === 'serve' || words[0] === 'build' || words[0] === 'gc' ? 1 : 2);
      const name = command.join(' ');
      if (!helps.has(name)) {
        const result = await runCli([...command, '--help']);
        expect(result.code, `snapdeck ${name} --help`).toBe(0);
        helps.set(name, result.stdout);
      }
      for (const flag of words.filter((w) => w.startsWith('--'))) expect(helps.get(name), `${flag} in docs/operators line: ${line.text}`).toMatch(new RegExp(`(^|[\\s,])${flag}\\b`, 'm'));
    }
  }, 120_000);
});
