/**
 * The operator files shipped beside the VCL (issue 24 item 4), checked with the tools operators
 * run them with: deploy/prometheus/ with Debian's promtool (installed by
 * scripts/ci/ensure-prometheus.sh when missing), deploy/systemd/ with systemd-analyze.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/harness.ts';
import { ensureInstalled } from './helpers/processes.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PROMETHEUS = join(ROOT, 'deploy', 'prometheus');
const SYSTEMD = join(ROOT, 'deploy', 'systemd');
const RULES = join(PROMETHEUS, 'snapdeck.rules.yml');
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

  it('every alert links to its runbook section in the README', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const rules = await readFile(RULES, 'utf8');
    for (const name of await alertNames()) {
      expect(rules).toContain(`runbook: "README.md#${name.toLowerCase()}"`);
      const section = new RegExp(`^#### ${name}\\n\\n[^#]*What it means[^#]*What to check[^#]*What to do`, 'm');
      expect(readme, name).toMatch(section);
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
      await writeFile(join(dir, unit), text.replaceAll(`ExecStart=${UNIT_NODE} `, `ExecStart=${node} `));
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

  it('systemd-analyze verify can fail: a unit whose program is missing is refused', async () => {
    const text = await readFile(join(dir, 'snapdeck-build.service'), 'utf8');
    await writeFile(join(dir, 'broken-build.service'), text.replace(/^ExecStart=\S+/m, 'ExecStart=/nonexistent/node'));
    const result = run('systemd-analyze', ['verify', join(dir, 'broken-build.service')], dir);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('/nonexistent/node');
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
