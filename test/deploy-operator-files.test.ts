/**
 * The operator files shipped beside the VCL (alert rules, systemd units), checked with the tools
 * operators run them with: deploy/prometheus/ with Debian's promtool (installed by
 * scripts/ci/ensure-prometheus.sh when missing), deploy/systemd/ with systemd-analyze.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsDriver, build } from '@snapdeck/snapshot';
import { writeGeneratedCatalog } from './helpers/catalog.ts';
import { runCli } from './helpers/cli-gateway.ts';
import { tempDir, waitFor } from './helpers/harness.ts';
import { ensureInstalled, freePort, killOnExit, stopProcess } from './helpers/processes.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PROMETHEUS = join(ROOT, 'deploy', 'prometheus');
const SYSTEMD = join(ROOT, 'deploy', 'systemd');
const RULES = join(PROMETHEUS, 'snapdeck.rules.yml');
/** Where each alert's runbook section lives, as the rules' `runbook` annotations name it (relative to the repository). */
const RUNBOOK = 'docs/operators/alerts.md';
/** Where the units expect node (Debian's nodejs, NodeSource's); systemd-analyze checks it exists. */
const UNIT_NODE = '/usr/bin/node';

function run(command: string, args: string[], cwd?: string): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const alertNames = async () => [...(await readFile(RULES, 'utf8')).matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1]!);

describe('deploy/prometheus', () => {
  beforeAll(() => ensureInstalled('promtool', ['--version'], 'ensure-prometheus.sh'));

  it('the alert rules and the example configuration pass promtool check', () => {
    const rules = run('promtool', ['check', 'rules', RULES]);
    expect(rules.output).toContain('SUCCESS: 8 rules found');
    expect(rules.status).toBe(0);
    const config = run('promtool', ['check', 'config', '--syntax-only', 'prometheus.yml'], PROMETHEUS);
    expect(config.status, config.output).toBe(0);
  });

  it('the alert rules pass their unit tests (promtool test rules), and every alert has one', async () => {
    const result = run('promtool', ['test', 'rules', 'snapdeck.rules.test.yml'], PROMETHEUS);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
    const names = await alertNames();
    expect(names).toEqual([
      'SnapdeckGatewayDown',
      'SnapdeckStoreStale',
      'SnapdeckCatalogNotRebuilt',
      'SnapdeckHigh5xxRatio',
      'SnapdeckHigh429Ratio',
      'SnapdeckHighP99Latency',
      'SnapdeckStorageErrors',
      'SnapdeckQuotaDegraded',
    ]);
    const tests = await readFile(join(PROMETHEUS, 'snapdeck.rules.test.yml'), 'utf8');
    for (const name of names) expect(tests, name).toMatch(new RegExp(`alertname: ${name}\\n\\s+exp_alerts:\\n\\s+- exp_labels`));
  });

  it('the unit tests can fail: a rule that never fires breaks them', async () => {
    const { dir, cleanup } = await tempDir('snapdeck-promtool-');
    try {
      const rules = await readFile(RULES, 'utf8');
      const broken = rules.replace('snapdeck_quota_degraded == 1', 'snapdeck_quota_degraded == 2');
      expect(broken).not.toBe(rules);
      await writeFile(join(dir, 'snapdeck.rules.yml'), broken);
      await copyFile(join(PROMETHEUS, 'snapdeck.rules.test.yml'), join(dir, 'snapdeck.rules.test.yml'));
      const result = run('promtool', ['test', 'rules', 'snapdeck.rules.test.yml'], dir);
      expect(result.status).not.toBe(0);
      expect(result.output).toContain('alertname: SnapdeckQuotaDegraded');
    } finally {
      await cleanup();
    }
  });

  it('every alert links to its runbook section in docs/operators/alerts.md', async () => {
    const runbook = await readFile(join(ROOT, RUNBOOK), 'utf8');
    const rules = await readFile(RULES, 'utf8');
    for (const name of await alertNames()) {
      expect(rules).toContain(`runbook: "${RUNBOOK}#${name.toLowerCase()}"`);
      const section = new RegExp(`^### ${name}\\n\\n[^#]*What it means[^#]*What to check[^#]*What to do`, 'm');
      expect(runbook, name).toMatch(section);
    }
  });
});

describe('deploy/systemd', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let units: string[];

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir('snapdeck-systemd-'));
    units = (await readdir(SYSTEMD)).filter((name) => /\.(service|timer)$/.test(name)).sort();
    // systemd-analyze verify checks that ExecStart's program exists: on a machine whose node is
    // elsewhere, the copies name this process's node instead (nothing else changes).
    const node = existsSync(UNIT_NODE) ? UNIT_NODE : process.execPath;
    for (const unit of units) {
      const text = await readFile(join(SYSTEMD, unit), 'utf8');
      await writeFile(join(dir, unit), text.replaceAll(`ExecStart=${UNIT_NODE} `, `ExecStart=${node} `).replaceAll(`ExecStartPre=${UNIT_NODE} `, `ExecStartPre=${node} `));
    }
  });
  afterAll(async () => cleanup?.());

  it('ships a gateway template (one instance per port), the nightly build with its timer, and gc', () => {
    expect(units).toEqual(['snapdeck-build.service', 'snapdeck-build.timer', 'snapdeck-gateway@.service', 'snapdeck-gc.service', 'snapdeck-gc.timer']);
  });

  it('every unit passes systemd-analyze verify, the gateway as two instances', async () => {
    const gateway = await readFile(join(SYSTEMD, 'snapdeck-gateway@.service'), 'utf8');
    expect(gateway).toMatch(/^ExecStart=\/usr\/bin\/node packages\/cli\/bin\/snapdeck\.js serve --port %i$/m);
    const instances = ['snapdeck-gateway@8787.service', 'snapdeck-gateway@8788.service'];
    const others = units.filter((unit) => !unit.includes('@'));
    const result = run('systemd-analyze', ['verify', ...[...instances, ...others].map((unit) => join(dir, unit))], dir);
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('every service refuses to start on a Node.js line other than the ones CI pins (scripts/ci/node-versions)', async () => {
    const pinned = (await readFile(join(ROOT, 'scripts', 'ci', 'node-versions'), 'utf8')).split('\n').filter((line) => /^\d/.test(line)).map((line) => line.split(/\s+/)[0]!);
    const majors = pinned.map((version) => version.split('.')[0]!);
    expect(majors.length).toBeGreaterThan(0);
    const checks = new Set<string>();
    for (const unit of units.filter((name) => name.endsWith('.service'))) {
      const text = await readFile(join(SYSTEMD, unit), 'utf8');
      // The check comes before the command, with the same node.
      expect(text, unit).toMatch(/^ExecStartPre=\/usr\/bin\/node -e ".*"\nExecStart=\/usr\/bin\/node packages\/cli\/bin\/snapdeck\.js /m);
      checks.add(/^ExecStartPre=\/usr\/bin\/node -e "(.*)"$/m.exec(text)![1]!);
    }
    expect(checks.size).toBe(1);
    const [check] = [...checks] as [string];
    // systemd would expand $ and % in it; the lines it accepts are exactly the pinned majors.
    expect(check).not.toMatch(/[$%\\"]/);
    expect(/\[([^\]]*)\]\.includes/.exec(check)![1]).toBe(majors.map((major) => `'${major}'`).join(', '));
    // Run as systemd runs it: with this process's node (20, 22, 24 or 26 in CI), then with each pinned
    // line and with lines that are not pinned (the version the check reads, set before it runs).
    const runCheck = (version?: string) =>
      spawnSync(process.execPath, [...(version ? ['--import', `data:text/javascript,Object.defineProperty(process.versions, "node", { value: "${version}" })`] : []), '-e', check], { encoding: 'utf8' });
    const own = runCheck();
    expect(own.status, own.stderr).toBe(majors.includes(process.versions.node.split('.')[0]!) ? 0 : 1);
    for (const version of pinned) expect(runCheck(version).status, version).toBe(0);
    // The lines named as people write them: "22, 24 or 26".
    const named = majors.length > 1 ? `${majors.slice(0, -1).join(', ')} or ${majors.at(-1)}` : majors[0];
    for (const version of ['20.20.2', '21.7.3', '23.11.1', '25.9.0', '28.0.0']) {
      const refused = runCheck(version);
      expect(refused.status, version).toBe(1);
      expect(refused.stderr).toContain(`snapdeck needs Node.js ${named} (README: Supported Node.js versions), and ${process.execPath} is ${process.version}`);
    }
  });

  it('systemd-analyze verify can fail: a unit whose program is missing is refused', async () => {
    const text = await readFile(join(dir, 'snapdeck-build.service'), 'utf8');
    await writeFile(join(dir, 'broken-build.service'), text.replace(/^ExecStart=\S+/m, 'ExecStart=/nonexistent/node'));
    const result = run('systemd-analyze', ['verify', join(dir, 'broken-build.service')], dir);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('/nonexistent/node');
  });

  it("the gateway unit's command, with its Environment= lines and an env file, starts a ready gateway", async () => {
    // What systemd would run for snapdeck-gateway@PORT, run here: ExecStart's arguments from
    // WorkingDirectory, the unit's Environment= lines with %i expanded, the env file's variables.
    const unit = await readFile(join(SYSTEMD, 'snapdeck-gateway@.service'), 'utf8');
    const port = await freePort();
    const expand = (text: string) => text.replaceAll('%i', String(port)).replaceAll('/var/cache/snapdeck', join(dir, 'cache'));
    const [, ...args] = expand(/^ExecStart=(.*)$/m.exec(unit)![1]!).split(' ');
    const unitEnv = Object.fromEntries([...unit.matchAll(/^Environment=(\w+)=(.*)$/gm)].map((m) => [m[1]!, expand(m[2]!)]));
    expect(/^WorkingDirectory=(.*)$/m.exec(unit)![1]).toBe('/opt/snapdeck');
    await writeGeneratedCatalog(join(dir, 'catalog'), { digimon: 5, gundam: 5, 'grand-archive': 5, 'chrono-core': 5 });
    await build({ catalogDir: join(dir, 'catalog'), storage: new FsDriver(join(dir, 'snapshots')), hitsPerPage: [5] });
    const published = await runCli(['keys', 'create', '--name', 'unit', '--db', join(dir, 'writer.db'), '--publish', join(dir, 'store')]);
    expect(published.code, published.stderr).toBe(0);
    const envFile = { SNAPDECK_SNAPSHOTS: join(dir, 'snapshots'), SNAPDECK_STORE: join(dir, 'store') };
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...unitEnv, ...envFile }, stdio: ['ignore', 'ignore', 'pipe'] });
    killOnExit(child);
    try {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await waitFor(async () => stderr.includes(`listening on http://127.0.0.1:${port}/v1`) || child.exitCode !== null, 20_000, 'no answer');
      expect(stderr).toContain(`listening on http://127.0.0.1:${port}/v1`);
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, 20_000, 'not ready');
      expect(stderr).toContain(`store: ${join(dir, 'store')}`);
      expect(existsSync(join(dir, 'cache', `gateway-${port}`))).toBe(true);
    } finally {
      await stopProcess(child, 10_000);
    }
  });

  it('the commands the units run are ones the CLI accepts', () => {
    // Their --help parses the same options: a renamed flag would make the unit fail at 3 a.m.
    const cli = join(ROOT, 'packages', 'cli', 'bin', 'snapdeck.js');
    for (const [command, flags] of [
      ['serve', ['--port']],
      ['build', ['--catalog', '--out']],
      ['gc', ['--out', '--keep', '--min-age']],
    ] as const) {
      const help = execFileSync(process.execPath, [cli, command, '--help'], { cwd: ROOT, encoding: 'utf8' });
      for (const flag of flags) expect(help, `${command} ${flag}`).toContain(flag);
    }
  });
});
