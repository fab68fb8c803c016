/**
 * The image and compose.yaml with real containers (podman and podman-compose; outside `npm test`,
 * run by .ci/run through `npm run test:containers`). The block "The whole topology, step by step"
 * of docs/operators/containers.md runs line by line: `docker` is podman, `docker compose` is
 * podman-compose with a project of its own, the ports are free ones; every `curl` checks the
 * status its comment names. Then what an operator relies on: a gateway killed with no failed
 * request, a stop that drains in the documented time, the image read-only and non-root (checked),
 * its size, the errors a wrong volume gives, and the writer's volume across a restart. Each check's
 * time and figures are printed at the end (the timeline).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idGenerator } from '../helpers/decks.ts';
import { tempDir } from '../helpers/harness.ts';
import { freePort } from '../helpers/processes.ts';
import { ROOT, guideLines, parseLine, shBlockAfter } from '../helpers/readme-guide.ts';
import { scanForSecrets } from '../helpers/secret-scan.ts';
import { type Ran, ensureContainers, npmBuildMounts, run } from './podman.ts';
import { loadWhileKilled, statusOf, stopDraining } from './traffic.ts';

const PAGE = join(ROOT, 'docs', 'operators', 'containers.md');
const HEADING = '## The whole topology, step by step';
const IMAGE = 'localhost/snapdeck:latest';
const BASE = 'docker.io/library/node:26-bookworm-slim';
const KEY = /^sd_live_[0-9a-f]{32}$/m;

const project = `sdci${randomBytes(3).toString('hex')}`;
const ports = { gateway1: 0, gateway2: 0, http: 0 };
const env: Record<string, string> = {};
const timeline: string[] = [];
const files = new Map<string, string>();
let work: { dir: string; cleanup: () => Promise<void> };
let lines: string[];

const container = (service: string) => `${project}_${service}_1`;
const podman = (args: string[], timeoutMs?: number) => run('podman', args, { env, timeoutMs });
const compose = (args: string[], timeoutMs?: number) => run('podman-compose', ['-p', project, '-f', join(ROOT, 'compose.yaml'), ...args], { env, timeoutMs });
const note = (what: string, ms: number, figures = '') => timeline.push(`${(ms / 1000).toFixed(1).padStart(6)} s  ${what}${figures ? `: ${figures}` : ''}`);
const ok = (ran: Ran, what: string) => expect(ran.code, `${what}\n${ran.stdout.slice(-3000)}\n${ran.stderr.slice(-3000)}`).toBe(0);

beforeAll(async () => {
  const began = Date.now();
  env.CONTAINERS_CONF = ensureContainers();
  note('bases ready (scripts/ci/ensure-containers.sh)', Date.now() - began);
  work = await tempDir('snapdeck-containers-');
  await chmod(work.dir, 0o755);
  for (const name of Object.keys(ports) as Array<keyof typeof ports>) ports[name] = await freePort();
  Object.assign(env, { SNAPDECK_GATEWAY_1_PORT: String(ports.gateway1), SNAPDECK_GATEWAY_2_PORT: String(ports.gateway2), SNAPDECK_HTTP_PORT: String(ports.http), SNAPDECK_EXPORTS_DIR: join(work.dir, 'exports') });
  await writeExports(join(work.dir, 'exports'));
  lines = guideLines(shBlockAfter(HEADING, PAGE)).map((line) => line.text);
}, 900_000);

afterAll(async () => {
  if (env.CONTAINERS_CONF) {
    await scanGatewayLogs();
    await compose(['down', '-v'], 180_000);
    // podman-compose 1.0.3 leaves the project's network (and its subnet) behind.
    await podman(['network', 'rm', `${project}_default`]);
  }
  await work?.cleanup();
  console.log(`container test timeline (project ${project}, ${new Date().toISOString()}):\n${timeline.join('\n')}`);
}, 300_000);

/** The gateways' output (access log and start-up lines) holds no key, token or link (helpers/secret-scan.ts). */
async function scanGatewayLogs(): Promise<void> {
  for (const service of ['gateway-1', 'gateway-2']) {
    const logs = await podman(['logs', container(service)]);
    scanForSecrets(`podman logs ${service}`, `${logs.stdout}\n${logs.stderr}`);
  }
}

/** Three public decks of the default catalog, the exports the writer imports. */
async function writeExports(dir: string): Promise<void> {
  const ids = (await readFile(join(ROOT, 'data', 'catalog', 'digimon.jsonl'), 'utf8')).split('\n').slice(0, 8).map((line) => (JSON.parse(line) as { id: string }).id);
  const newId = idGenerator(31);
  const now = new Date().toISOString();
  const decks = [0, 1, 2].map((n) => JSON.stringify({ id: newId(), gameId: 'digimon', name: `Compose deck ${n}`, ownerDisplayName: 'operator', visibility: 'public', createdAt: now, updatedAt: now, cards: ids.slice(n, n + 4).map((cardId) => ({ cardId, quantity: 2 })) }));
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await writeFile(join(dir, 'today.jsonl'), `${decks.join('\n')}\n`, { mode: 0o644 });
}

/** The page's ports and files as this run has them. */
function localize(text: string): string {
  return text
    .replaceAll('127.0.0.1:8787', `127.0.0.1:${ports.gateway1}`)
    .replaceAll('127.0.0.1:8788', `127.0.0.1:${ports.gateway2}`)
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.http}`)
    .replaceAll(/\$\(cat ([\w.-]+)\)/g, (_, file: string) => files.get(file) ?? `<${file} not written yet>`);
}

/** One line of the page's block, as this machine runs it. */
async function step(text: string): Promise<void> {
  const line = parseLine(localize(text));
  const [tool, ...args] = line.words;
  const where = `docs/operators/containers.md: ${text}`;
  if (tool === 'docker' && args[0] === 'build') {
    // --pull=never: the bases are local; --format docker keeps HEALTHCHECK (OCI images drop it).
    const ran = await podman(['build', '--pull=never', '--format', 'docker', ...(await npmBuildMounts(join(dirname(env.CONTAINERS_CONF!), 'npm'))), ...args.slice(1)], 900_000);
    ok(ran, where);
  } else if (tool === 'docker' && args[0] === 'compose') {
    // podman-compose 1.0.3 starts every service before a `run` unless told not to.
    const sub = args[1] === 'run' ? ['run', '--no-deps', ...args.slice(2)] : args.slice(1);
    const ran = await compose(sub, 300_000);
    ok(ran, where);
    // podman-compose prints the podman commands it runs on stdout and reports the exit code there.
    expect(/exit code: (\d+)\s*$/.exec(ran.stdout.trim())?.[1] ?? '0', `${where}\n${ran.stdout}\n${ran.stderr}`).toBe('0');
    if (line.redirect) {
      const key = KEY.exec(ran.stdout)?.[0];
      expect(key, `${where}: no key on stdout`).toBeDefined();
      files.set(line.redirect, key!);
    }
  } else if (tool === 'curl') {
    const expected = Number(/→ (\d{3})/.exec(line.comment)?.[1] ?? '200');
    const headers = new Headers();
    for (let i = 0; i < args.length; i++) if (args[i] === '-H') headers.append(...(args[++i]!.split(/:\s*(.*)/s).slice(0, 2) as [string, string]));
    const url = args.find((a) => a.startsWith('http'))!;
    // "once …": polled (with node:http: what is not ready yet is not a response to validate) until
    // it holds; then asked once more with the suite's fetch, which validates the response.
    if (/\bonce\b|\buntil\b/.test(line.comment)) await until(async () => (await statusOf(url, Object.fromEntries(headers))) === expected, 90_000, where);
    expect((await fetch(url, { headers, signal: AbortSignal.timeout(10_000) })).status, where).toBe(expected);
  } else {
    throw new Error(`the container test does not know ${tool}: ${where}`);
  }
}

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not done within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return Date.now() - started;
}

/** What Varnish makes of the gateways now, and the reloads deploy/compose/varnish.sh made. */
async function varnishState(): Promise<string> {
  const backends = (await podman(['exec', container('varnish'), 'varnishadm', 'backend.list'])).stdout;
  const reloads = (await podman(['logs', container('varnish')])).stderr.split('\n').filter((l) => l.startsWith('varnish.sh'));
  return `\n${backends}\n${reloads.join('\n')}`;
}

const get = (url: string, key?: string) => fetch(url, { headers: key ? { 'X-API-Key': key } : {}, signal: AbortSignal.timeout(10_000) });

describe('the image and compose.yaml, with real containers', () => {
  it('runs the page\'s block line by line, up to `down`', async () => {
    expect(lines.at(-1)).toMatch(/^docker compose down\b/);
    for (const text of lines.slice(0, -1)) {
      const began = Date.now();
      await step(text);
      note(text.replace(/\s+#.*$/, '').slice(0, 90), Date.now() - began);
    }
  }, 1_500_000);

  it('is at most 150 MB over its Node base, runs as uid 1000 on a read-only root, and holds nothing it should not', async () => {
    const size = async (image: string) => Number((await podman(['image', 'inspect', image, '--format', '{{.Size}}'])).stdout.trim());
    const [total, base] = [await size(IMAGE), await size(BASE)];
    note('image size', 0, `${(total / 1e6).toFixed(0)} MB, ${((total - base) / 1e6).toFixed(1)} MB over ${BASE} (${(base / 1e6).toFixed(0)} MB)`);
    expect(total - base).toBeLessThanOrEqual(150e6);
    const config = JSON.parse((await podman(['image', 'inspect', IMAGE])).stdout)[0];
    expect(config.Config.User).toBe('1000:1000');
    expect(config.Healthcheck?.Test).toEqual(['CMD', 'node', '/opt/snapdeck/deploy/container/healthcheck.mjs']);
    for (const service of ['gateway-1', 'gateway-2']) {
      const inspect = JSON.parse((await podman(['inspect', container(service)])).stdout)[0];
      expect(inspect.HostConfig.ReadonlyRootfs, service).toBe(true);
      const inside = await podman(['exec', container(service), 'sh', '-c', 'id -u; id -g; touch /opt/snapdeck/x 2>&1 || true; touch /tmp/x && echo tmp-ok; node /opt/snapdeck/deploy/container/healthcheck.mjs && echo healthy; snapdeck --version']);
      expect(inside.stdout.split('\n').slice(0, 2)).toEqual(['1000', '1000']);
      expect(inside.stdout).toMatch(/Read-only file system/);
      expect(inside.stdout).toMatch(/tmp-ok\nhealthy\nsnapdeck \d+\.\d+\.\d+ \(commit \S+, Node\.js v26\./);
      expect((await podman(['top', container(service), 'user', 'args'])).stdout).toMatch(/^node\s+node \/opt\/snapdeck\/packages\/cli\/bin\/snapdeck\.js serve/m);
    }
    // No dev dependency, test, catalog, checkout file or build-time npm setting in the image.
    const absent = await podman(['run', '--rm', '--no-healthcheck', '--entrypoint', 'sh', IMAGE, '-c', 'ls -d /opt/snapdeck/node_modules/vitest /opt/snapdeck/node_modules/typescript /opt/snapdeck/test /opt/snapdeck/data /opt/snapdeck/.git /usr/local/etc/npmrc /usr/local/etc/npm-ca.crt /root/.npm 2>/dev/null; find /opt/snapdeck/packages -name "*.test.ts" | head -1; echo done']);
    expect(absent.stdout.trim()).toBe('done');
  }, 120_000);

  it('a key the writer creates reaches both gateways; a card page and a deck come through Varnish', async () => {
    const ran = await compose(['run', '--no-deps', '--rm', '-T', 'writer', 'keys', 'create', '--name', 'partner-b', '--scope', 'decks:browse:public', '--scope', 'decks:read:public', '--db', '/var/lib/snapdeck/writer.db'], 120_000);
    ok(ran, 'keys create partner-b');
    const key = KEY.exec(ran.stdout)![0];
    files.set('partner-b.key', key);
    const waited = await until(async () => (await Promise.all([ports.gateway1, ports.gateway2].map((p) => statusOf(`http://127.0.0.1:${p}/v1/games`, { 'X-API-Key': key })))).every((s) => s === 200), 30_000, 'the new key on both gateways');
    note('new key served by both gateways', waited, `${waited} ms after keys create returned`);
    const varnish = `http://127.0.0.1:${ports.http}`;
    const page = await get(`${varnish}/v1/games/digimon/cards?hitsPerPage=2`, key);
    expect(page.status).toBe(200);
    const decks = (await (await get(`${varnish}/v1/decks/public?gameId=digimon`, key)).json()) as { data: { decks: Array<{ id: string }> } };
    expect(decks.data.decks).toHaveLength(3);
    expect((await get(`${varnish}/v1/decks/${decks.data.decks[0]!.id}`)).status).toBe(200);
  }, 180_000);

  it('one gateway killed (kill -s KILL): no request sent after the probes\' window fails; restarted, it is back in rotation', async () => {
    const figures = await loadWhileKilled({ varnish: `http://127.0.0.1:${ports.http}`, key: files.get('partner-b.key')!, kill: () => podman(['kill', '-s', 'KILL', container('gateway-1')]) });
    note('gateway-1 killed under load', figures.ms, `${figures.requests} requests through Varnish, ${figures.failed} failed (${figures.failures}), ${figures.lateFailed} of them sent over 3 s after the kill`);
    const started = Date.now();
    ok(await podman(['start', container('gateway-1')]), 'podman start gateway-1');
    await until(async () => (await statusOf(`http://127.0.0.1:${ports.gateway1}/readyz`)) === 200, 60_000, 'gateway-1 ready again');
    // Its address changed: deploy/compose/varnish.sh loads the VCL again and the probes find it.
    await until(async () => /\.gateway_8787\s+probe\s+\S+\s+healthy/.test((await podman(['exec', container('varnish'), 'varnishadm', 'backend.list'])).stdout), 60_000, 'gateway-1 healthy in Varnish');
    note('gateway-1 restarted, ready and healthy in Varnish', Date.now() - started, await varnishState());
    expect(figures.lateFailed).toBe(0);
  }, 240_000);

  it('stop drains as documented: /readyz 503 at once, requests served, exit 0 well within the grace period', async () => {
    const figures = await stopDraining({ gateway: `http://127.0.0.1:${ports.gateway2}`, varnish: `http://127.0.0.1:${ports.http}`, key: files.get('partner-b.key')!, stop: () => podman(['stop', '-t', '35', container('gateway-2')], 60_000) });
    note('gateway-2 stopped (podman stop -t 35)', figures.stopMs, `503 from /readyz ${figures.notReadyMs} ms after the stop, last request served ${figures.lastServedMs} ms after it, ${figures.failedThroughVarnish} of ${figures.throughVarnish} through Varnish failed (${figures.failures})`);
    if (figures.failedThroughVarnish > 0) note('Varnish after the stop', 0, await varnishState());
    expect(figures.notReadyMs).toBeLessThan(2000);
    expect(figures.lastServedMs).toBeGreaterThan(3000);
    expect(figures.stopMs).toBeLessThan(25_000);
    expect(figures.failedThroughVarnish).toBe(0);
    const state = JSON.parse((await podman(['inspect', container('gateway-2')])).stdout)[0].State;
    expect(state.ExitCode).toBe(0);
    expect((await podman(['logs', container('gateway-2')])).stderr).toMatch(/SIGTERM: stopped after \d+\.\d s, every request answered/);
    ok(await podman(['start', container('gateway-2')]), 'podman start gateway-2');
  }, 180_000);

  it('a volume the image cannot write, a missing writer database, a taken port: one line each, exit non-zero', async () => {
    const locked = join(work.dir, 'root-owned');
    await mkdir(locked, { mode: 0o755 });
    const lockedRun = await podman(['run', '--rm', '--no-healthcheck', '--read-only', '-v', `${locked}:/var/lib/snapdeck`, IMAGE, 'keys', 'create', '--name', 'x', '--db', '/var/lib/snapdeck/writer.db']);
    expect(lockedRun.code).toBe(1);
    expect(lockedRun.stderr.trim()).toBe('snapdeck keys create: the database /var/lib/snapdeck/writer.db: its folder /var/lib/snapdeck is not writable by this process (uid 1000, gid 1000): mount a volume there that uid 1000, gid 1000 may write, or give another folder');
    const missing = await podman(['run', '--rm', '--no-healthcheck', '--read-only', IMAGE, 'keys', 'list', '--db', '/var/lib/snapdeck/writer.db']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toBe('snapdeck keys list: database /var/lib/snapdeck/writer.db does not exist: give --db the path of an existing database (`keys create` and `decks import` create one)');
    // A host port another process holds: the engine refuses to start the container, naming it.
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const port = (held.address() as { port: number }).port;
    const taken = await podman(['run', '--rm', '-d', '--no-healthcheck', '-p', `127.0.0.1:${port}:8787`, IMAGE]);
    await new Promise((resolve) => held.close(resolve));
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}: bind: address already in use`));
    note('wrong volume, missing database, taken port refused', lockedRun.ms + missing.ms + taken.ms, taken.stderr.trim().split('\n').at(-1));
  }, 120_000);

  it('`down`, then `up` again: the writer\'s volume kept every key and deck', async () => {
    const began = Date.now();
    await scanGatewayLogs(); // `down` removes the containers, and their logs with them
    await step(lines.at(-1)!);
    ok(await compose(['up', '-d'], 300_000), 'up -d again');
    const listed = await compose(['run', '--no-deps', '--rm', '-T', 'writer', 'keys', 'list', '--db', '/var/lib/snapdeck/writer.db'], 120_000);
    expect(listed.stdout).toMatch(/partner-a/);
    expect(listed.stdout).toMatch(/partner-b/);
    const key = files.get('partner-a.key')!;
    await until(async () => (await statusOf(`http://127.0.0.1:${ports.http}/v1/decks/public?gameId=digimon`, { 'X-API-Key': key })) === 200, 90_000, 'partner-a through Varnish after the restart');
    const decks = (await (await get(`http://127.0.0.1:${ports.gateway2}/v1/decks/public?gameId=digimon`, key)).json()) as { data: { decks: unknown[] } };
    expect(decks.data.decks).toHaveLength(3);
    note('down and up: keys and decks kept', Date.now() - began);
  }, 600_000);
});
